import Foundation

/// `user-registered`, published by auth when an account is created. Carries what read models of other
/// services need (profile fields included, since profile reads may live outside auth).
public struct UserRegistered: EventPayload, Equatable {
    public static let eventType = EventType.userRegistered
    public var userId: String
    public var email: String
    public var nick: String
    public var phoneNum: String?
    public var birthDay: String?
    public var profileImage: String?
    public var registeredAt: Date

    public init(
        userId: String, email: String, nick: String, phoneNum: String?, birthDay: String?, profileImage: String?,
        registeredAt: Date
    ) {
        self.userId = userId
        self.email = email
        self.nick = nick
        self.phoneNum = phoneNum
        self.birthDay = birthDay
        self.profileImage = profileImage
        self.registeredAt = registeredAt
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", email, nick, phoneNum, birthDay, profileImage, registeredAt = "registered_at"
    }
}

/// `user-withdrawn`, published by auth when an account is deleted. Every service hides the user's content.
public struct UserWithdrawn: EventPayload, Equatable {
    public static let eventType = EventType.userWithdrawn
    public var userId: String
    public var withdrawnAt: Date

    public init(userId: String, withdrawnAt: Date) {
        self.userId = userId
        self.withdrawnAt = withdrawnAt
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", withdrawnAt = "withdrawn_at"
    }
}

/// `user-updated`, published by whichever service owns the profile write model (issue 4) when nick, profile
/// image or other profile fields change. Carries the whole current profile, so consumers just overwrite.
public struct UserUpdated: EventPayload, Equatable {
    public static let eventType = EventType.userUpdated
    public var userId: String
    public var nick: String
    public var phoneNum: String?
    public var birthDay: String?
    public var profileImage: String?
    public var updatedAt: Date

    public init(
        userId: String, nick: String, phoneNum: String?, birthDay: String?, profileImage: String?, updatedAt: Date
    ) {
        self.userId = userId
        self.nick = nick
        self.phoneNum = phoneNum
        self.birthDay = birthDay
        self.profileImage = profileImage
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", nick, phoneNum, birthDay, profileImage, updatedAt = "updated_at"
    }
}
