import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `PUT /internal/v1/profile` (internal: never routed by the gateway) with JSON
/// `{"nick"?, "phoneNum"?: String|null, "birthDay"?: String|null, "profileImage"?}` →
/// `{user_id, email, nick, phoneNum?, birthDay?, profileImage?, updatedAt}`.
///
/// Why an internal endpoint here: the public profile edit (`PUT /v1/users/me/profile`, API conventions §2.2 #7) is
/// served by the social service, but the profile's write model stays in auth, because whether a nick is free
/// must be decided by one unique index for join and rename alike. So social stores the image with media, then
/// calls this with the user's own access token and `SesacKey`; auth trusts nothing but the token.
///
/// Codes: 400 bad input (`nick`/`profileImage` null, malformed fields, a `profileImage` that is not a profile
/// image media issued to this user), 402 whitespace in the nick, 409 nick used by another active account
/// (case-insensitively; also when a concurrent rename or join wins the unique index), 401 for a withdrawn or
/// unknown account or a revoked session, 419 expired token, 420 SesacKey. Renaming to one's own nick in
/// another case is allowed (the index holds the same `lower(nick)` for the same row).
///
/// The account row and its `user-updated` event (the whole current profile) commit in one transaction. Every
/// accepted request is an edit, even one that changes nothing: it gets a new `updatedAt` and an event, which
/// consumers apply by overwriting.
struct ProfileUpdateHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        let user = try context.requireUser()
        let body = try await request.decodeJSON(as: ProfileUpdateRequest.self, context: context)
        let edit = try ProfileEdit(body, rules: deps.rules, mediaPaths: deps.mediaPaths, owner: user.userId)
        if let nick = edit.nick,
            try await deps.profiles.nickTaken(nick, byOtherThan: user.userId, logger: context.logger)
        {
            throw Accounts.nickTaken
        }

        let result: ProfileResponse?
        let ticket = deps.outbox.readYourWrites()
        do {
            result = try await deps.postgres.transaction(logger: context.logger) { connection -> ProfileResponse? in
                guard
                    let current = try await deps.profiles.lockProfile(
                        userId: user.userId, on: connection, logger: context.logger)
                else {
                    return nil
                }
                let profile = edit.applied(to: current)
                let updatedAt = try await deps.profiles.write(profile, on: connection, logger: context.logger)
                let event = UserUpdated(
                    userId: profile.userId, nick: profile.nick, phoneNum: profile.phoneNum,
                    birthDay: profile.birthDay, profileImage: profile.profileImage, updatedAt: updatedAt)
                try await deps.outbox.append(
                    event, aggregateId: profile.userId, trace: context.trace, awaitedBy: ticket,
                    on: connection, logger: context.logger)
                return ProfileResponse(
                    userId: profile.userId, email: profile.email, nick: profile.nick, phoneNum: profile.phoneNum,
                    birthDay: profile.birthDay, profileImage: profile.profileImage, updatedAt: updatedAt)
            }
        } catch is ProfileStore.NickTaken {
            throw Accounts.nickTaken
        }
        guard let result else { throw APIError.unauthorized("탈퇴한 계정입니다. (account withdrawn or unknown)") }
        // The new nick or image shows at once on the profile (social) and on posts and comments (posts).
        await ticket.wait(logger: context.logger)
        context.logger.info("profile updated", metadata: ["user_id": "\(user.userId)"])
        return try .json(result)
    }
}
