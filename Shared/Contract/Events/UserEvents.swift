import Foundation

/// `user-registered`, published by auth when an account is created. Carries what read models of other
/// services need (profile fields included, since profile reads may live outside auth).
package struct UserRegistered: EventPayload, Equatable {
    package static let eventType = EventType.userRegistered
    package var userId: String
    package var email: String
    package var nick: String
    package var phoneNum: String?
    package var birthDay: String?
    package var profileImage: String?
    package var registeredAt: Date

    package init(
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
package struct UserWithdrawn: EventPayload, Equatable {
    package static let eventType = EventType.userWithdrawn
    package var userId: String
    package var withdrawnAt: Date

    package init(userId: String, withdrawnAt: Date) {
        self.userId = userId
        self.withdrawnAt = withdrawnAt
    }

    enum CodingKeys: String, CodingKey {
        case userId = "user_id", withdrawnAt = "withdrawn_at"
    }
}

/// `user-updated`, published by whichever service owns the profile write model (issue 4) when nick, profile
/// image or other profile fields change. Carries the whole current profile, so consumers just overwrite.
package struct UserUpdated: EventPayload, Equatable {
    package static let eventType = EventType.userUpdated
    package var userId: String
    package var nick: String
    package var phoneNum: String?
    package var birthDay: String?
    package var profileImage: String?
    package var updatedAt: Date

    package init(
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
