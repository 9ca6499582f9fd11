import Foundation
import Logging
import SNSPlatform

/// Signing up, logging in with email and password, and withdrawing — the same rules, transactions and events for
/// G1 and G0 (API conventions §2.1, §4).
struct Accounts: Sendable {
    let deps: AuthDependencies

    static let emailTaken = APIError.conflict("이미 가입한 유저입니다. (email already registered)")
    static let nickTaken = APIError.conflict("이미 사용중인 닉네임입니다. (nick already in use)")

    /// A new account: 400 bad input, 402 whitespace in nick, 409 email or nick taken. The account and its
    /// `user-registered` event commit in one transaction. Concurrent joins with the same email (or nick) race on a
    /// unique index: exactly one wins, the others get 409.
    func join(_ body: JoinRequest, trace: TraceContext, logger: Logger) async throws -> AccountSummary {
        try deps.rules.validateEmail(body.email)
        try deps.rules.validatePassword(body.password)
        try deps.rules.validateNick(body.nick)
        let phoneNum = try deps.rules.normalizeOptional(body.phoneNum, field: "phoneNum")
        let birthDay = try deps.rules.normalizeOptional(body.birthDay, field: "birthDay")

        if try await deps.store.emailInUse(body.email, logger: logger) { throw Self.emailTaken }
        if try await deps.store.nickInUse(body.nick, logger: logger) { throw Self.nickTaken }

        let passwordHash = try await deps.hasher.hash(body.password)
        let userId = ObjectID.generate()
        let now = Date()
        let event = UserRegistered(
            userId: userId, email: body.email, nick: body.nick, phoneNum: phoneNum,
            birthDay: birthDay, profileImage: nil, registeredAt: now)
        let ticket = deps.outbox.readYourWrites()
        do {
            try await deps.postgres.transaction(logger: logger) { connection in
                try await deps.store.insert(
                    userId: userId, email: body.email, nick: body.nick, passwordHash: passwordHash,
                    phoneNum: phoneNum, birthDay: birthDay, createdAt: now, on: connection, logger: logger)
                try await deps.outbox.append(
                    event, aggregateId: userId, trace: trace, awaitedBy: ticket, on: connection, logger: logger)
            }
        } catch AccountStore.InsertConflict.email {
            throw Self.emailTaken
        } catch AccountStore.InsertConflict.nick {
            throw Self.nickTaken
        }
        // The app logs in and opens the profile next: social and posts must know the account (decision 0013).
        await ticket.wait(logger: logger)
        logger.info("account created", metadata: ["user_id": "\(userId)"])
        return AccountSummary(userId: userId, email: body.email, nick: body.nick)
    }

    /// A session for email and password; 401 for an unknown email or a wrong password (the same message and about
    /// the same time for both).
    func logIn(_ body: LoginRequest, logger: Logger) async throws -> LoginResponse {
        guard !body.email.isEmpty, !body.password.isEmpty else {
            throw APIError.badRequest("필수값을 채워주세요. (email and password are required)")
        }
        let account = try await deps.store.activeAccount(email: body.email, logger: logger)
        // An account made by federated sign-in has no password: it is checked against the dummy hash like an
        // unknown email, and refused whatever the password.
        let matches = try await deps.hasher.verify(body.password, hash: account?.passwordHash ?? deps.dummyPasswordHash)
        guard let account, account.passwordHash != nil, matches else {
            throw APIError.unauthorized("계정을 확인해주세요. (unknown account or wrong password)")
        }
        let session = try await Sessions(deps: deps).start(userId: account.userId, logger: logger)
        logger.info("login", metadata: ["user_id": "\(account.userId)"])
        return LoginResponse(
            userId: account.userId, email: account.email, nick: account.nick, profileImage: account.profileImage,
            accessToken: session.accessToken, refreshToken: session.refreshToken)
    }

    /// In one transaction: the account is marked withdrawn (email and nick become free), every session is revoked,
    /// its federated identities are released, and `user-withdrawn` goes to the outbox so every other service hides
    /// the user's content and stops accepting the user's tokens.
    func withdraw(by caller: Caller) async throws -> AccountSummary {
        let (userId, logger) = (caller.userId, caller.logger)
        let now = Date()
        let ticket = deps.outbox.readYourWrites()
        let summary = try await deps.postgres.transaction(logger: logger) { connection -> AccountSummary? in
            guard let summary = try await deps.store.withdraw(userId: userId, at: now, on: connection, logger: logger)
            else {
                return nil
            }
            try await deps.store.revokeSessions(userId: userId, sessionId: nil, on: connection, logger: logger)
            // Federated identities (Firebase, Apple, Kakao) no longer sign into this account (decision 0012).
            try await deps.identities.release(userId: userId, at: now, on: connection, logger: logger)
            try await deps.outbox.append(
                UserWithdrawn(userId: userId, withdrawnAt: now), aggregateId: userId,
                trace: caller.trace, awaitedBy: ticket, on: connection, logger: logger)
            return summary
        }
        guard let summary else { throw APIError.unauthorized("탈퇴한 계정입니다. (account already withdrawn)") }
        // Every service refuses the token through its own read model: answer once they all know (decision 0013).
        await ticket.wait(logger: logger)
        logger.info("account withdrawn", metadata: ["user_id": "\(userId)"])
        return summary
    }
}
