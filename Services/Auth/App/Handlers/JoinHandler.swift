import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `POST /v1/users/join` → `{user_id, email, nick}`; 400 bad input, 402 whitespace in nick, 409 email or nick taken.
/// The account and its `user-registered` event commit in one transaction. Concurrent joins with the same
/// email (or nick) race on a unique index: exactly one wins, the others get 409.
struct JoinHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(try await join(request, context: context))
    }

    /// The sign-up itself, shared by the G1 and G0 encodings.
    func join(_ request: Request, context: APIRequestContext) async throws -> AccountSummary {
        let body = try await request.decodeJSON(as: JoinRequest.self, context: context)
        try deps.rules.validateEmail(body.email)
        try deps.rules.validatePassword(body.password)
        try deps.rules.validateNick(body.nick)
        let phoneNum = try deps.rules.normalizeOptional(body.phoneNum, field: "phoneNum")
        let birthDay = try deps.rules.normalizeOptional(body.birthDay, field: "birthDay")

        if try await deps.store.emailInUse(body.email, logger: context.logger) { throw Self.emailTaken }
        if try await deps.store.nickInUse(body.nick, logger: context.logger) { throw Self.nickTaken }

        let passwordHash = try await deps.hasher.hash(body.password)
        let userId = ObjectID.generate()
        let now = Date()
        let event = UserRegistered(
            userId: userId, email: body.email, nick: body.nick, phoneNum: phoneNum,
            birthDay: birthDay, profileImage: nil, registeredAt: now)
        let ticket = deps.outbox.readYourWrites()
        do {
            try await deps.postgres.transaction(logger: context.logger) { connection in
                try await deps.store.insert(
                    userId: userId, email: body.email, nick: body.nick, passwordHash: passwordHash,
                    phoneNum: phoneNum, birthDay: birthDay, createdAt: now, on: connection, logger: context.logger)
                try await deps.outbox.append(
                    event, aggregateId: userId, trace: context.trace, awaitedBy: ticket,
                    on: connection, logger: context.logger)
            }
        } catch AccountStore.InsertConflict.email {
            throw Self.emailTaken
        } catch AccountStore.InsertConflict.nick {
            throw Self.nickTaken
        }
        // The app logs in and opens the profile next: social and posts must know the account (decision 0013).
        await ticket.wait(logger: context.logger)
        context.logger.info("account created", metadata: ["user_id": "\(userId)"])
        return AccountSummary(userId: userId, email: body.email, nick: body.nick)
    }

    static let emailTaken = APIError.conflict("이미 가입한 유저입니다. (email already registered)")
    static let nickTaken = APIError.conflict("이미 사용중인 닉네임입니다. (nick already in use)")
}
