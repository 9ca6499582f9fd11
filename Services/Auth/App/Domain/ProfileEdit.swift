import SNSPlatform

/// A validated profile edit: which fields to set, which to clear, which to leave. Built from the request
/// before anything touches the database, with the same rules as join (API conventions §10.6): 400 for a missing or
/// malformed value, 402 for whitespace in the nick. Nick uniqueness (409) is decided later, by the store.
struct ProfileEdit: Sendable, Equatable {
    /// What happens to an optional field.
    enum Change: Sendable, Equatable {
        case keep
        case set(String?)  // nil clears
    }

    /// nil = unchanged.
    var nick: String?
    var phoneNum: Change
    var birthDay: Change
    /// nil = unchanged; a profile image can be replaced but not removed.
    var profileImage: MediaPath?

    /// - Parameters:
    ///   - owner: the user editing their own profile (from the access token).
    ///   - mediaPaths: the signer that tells whether the media service issued a path to `owner`.
    init(_ request: ProfileUpdateRequest, rules: AccountRules, mediaPaths: MediaPathSigner, owner: String) throws {
        switch request.nick {
        case .absent:
            nick = nil
        case .null:
            throw APIError.badRequest("닉네임은 비울 수 없습니다. (nick cannot be null)")
        case .value(let value):
            try rules.validateNick(value)
            nick = value
        }
        phoneNum = try Self.change(request.phoneNum, field: "phoneNum", rules: rules)
        birthDay = try Self.change(request.birthDay, field: "birthDay", rules: rules)
        switch request.profileImage {
        case .absent:
            profileImage = nil
        case .null:
            throw APIError.badRequest("프로필 이미지는 비울 수 없습니다. (profileImage cannot be null)")
        case .value(let value):
            // Only a profile image our media service stored for this very user: never someone else's file, a
            // post image, or a path made up by the caller (the signature cannot be forged without the key).
            guard let path = MediaPath(value), path.kind == .profiles, mediaPaths.isIssued(path, to: owner) else {
                throw APIError.badRequest(
                    "업로드되지 않은 프로필 이미지입니다. (profileImage must be a profile image uploaded by this user)")
            }
            profileImage = path
        }
    }

    /// Like join, an empty string counts as absent: here, it clears the field.
    private static func change(_ field: Field<String>, field name: String, rules: AccountRules) throws -> Change {
        switch field {
        case .absent: return .keep
        case .null: return .set(nil)
        case .value(let value): return .set(try rules.normalizeOptional(value, field: name))
        }
    }

    /// `current` with this edit applied.
    func applied(to current: ProfileStore.Profile) -> ProfileStore.Profile {
        var profile = current
        if let nick { profile.nick = nick }
        if case .set(let value) = phoneNum { profile.phoneNum = value }
        if case .set(let value) = birthDay { profile.birthDay = value }
        if let profileImage { profile.profileImage = profileImage.string }
        return profile
    }
}
