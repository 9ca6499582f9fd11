import Foundation

/// One key of a JSON body, telling "absent" (leave the field as it is) from an explicit `null` (clear it).
enum Field<Value: Decodable & Sendable>: Sendable {
    case absent
    case null
    case value(Value)
}

extension KeyedDecodingContainer {
    func field<Value: Decodable & Sendable>(_ key: Key) throws -> Field<Value> {
        guard contains(key) else { return .absent }
        if try decodeNil(forKey: key) { return .null }
        return .value(try decode(Value.self, forKey: key))
    }
}

/// `PUT /internal/v1/profile` body: `{"nick"?, "phoneNum"?, "birthDay"?, "profileImage"?}`. The social service
/// builds it from the client's multipart profile edit (API conventions §2.2 #7) after storing the image with media.
/// An absent key leaves the field unchanged; `null` clears `phoneNum`/`birthDay` (and is refused for `nick`
/// and `profileImage`, which cannot be cleared, by `ProfileEdit`).
struct ProfileUpdateRequest: Decodable, Sendable {
    var nick: Field<String>
    var phoneNum: Field<String>
    var birthDay: Field<String>
    var profileImage: Field<String>

    enum CodingKeys: String, CodingKey {
        case nick, phoneNum, birthDay, profileImage
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        nick = try container.field(.nick)
        phoneNum = try container.field(.phoneNum)
        birthDay = try container.field(.birthDay)
        profileImage = try container.field(.profileImage)
    }
}

/// The profile as auth owns it, after an edit: `{user_id, email, nick, phoneNum?, birthDay?, profileImage?, updatedAt}`.
/// The social service adds `followers`, `following` and `posts` to make the client's Profile (API conventions §3.4).
struct ProfileResponse: Codable, Sendable, Equatable {
    var userId: String
    var email: String
    var nick: String
    var phoneNum: String?
    var birthDay: String?
    var profileImage: String?
    var updatedAt: Date

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, updatedAt
    }
}
