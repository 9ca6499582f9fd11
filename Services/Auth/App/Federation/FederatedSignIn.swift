import Foundation
import Logging
import SNSPlatform

/// From a verified identity to a session (decision 0012):
/// - a credential from before the identity's last withdrawal (`auth_time`/`iat` not after it), or one that already
///   opened a session of a since-withdrawn account, is refused (401): nothing is resurrected or created;
/// - an identity with an active link signs into that account;
/// - otherwise its first sign-in creates an account — synthetic email `<user_id>@<provider>.invalid`, no
///   password, a generated nick (Apple may suggest one), Firebase's verified phone number as `phoneNum` — with its
///   link and `user-registered` in one transaction. Two first sign-ins at once: one creates, the other signs in.
struct FederatedSignIn: Sendable {
    let deps: AuthDependencies

    func signIn(_ identity: VerifiedIdentity, suggestedNick: String?, context: APIRequestContext) async throws
        -> LoginResponse
    {
        let logger = context.logger
        let traces = try await deps.identities.withdrawalTraces(
            provider: identity.provider, subject: identity.subject, credentialHash: identity.credentialHash,
            logger: logger)
        if let released = traces.lastRelease, let signedInAt = identity.signedInAt, signedInAt <= released {
            logger.info(
                "federated sign-in refused: credential predates a withdrawal",
                metadata: ["provider": "\(identity.provider.rawValue)"])
            throw Self.withdrawn
        }
        if traces.credentialOfWithdrawnAccount {
            logger.info(
                "federated sign-in refused: credential of a withdrawn account",
                metadata: ["provider": "\(identity.provider.rawValue)"])
            throw Self.withdrawn
        }
        for _ in 0..<3 {
            if let account = try await deps.identities.activeAccount(
                provider: identity.provider, subject: identity.subject, logger: logger)
            {
                try await deps.identities.recordSignIn(
                    provider: identity.provider, subject: identity.subject,
                    phoneNumber: identity.phoneNumber, logger: logger)
                return try await session(for: account, identity: identity, logger: logger)
            }
            do {
                let account = try await createAccount(for: identity, suggestedNick: suggestedNick, context: context)
                return try await session(for: account, identity: identity, logger: logger)
            } catch is IdentityStore.AlreadyLinked {
                continue  // a concurrent first sign-in of the same identity won: sign into its account
            }
        }
        throw APIError.unavailable()
    }

    static let withdrawn = APIError.unauthorized(
        "탈퇴한 계정의 로그인 정보입니다. 다시 인증해주세요. (this sign-in predates the withdrawal of its account; authenticate with the provider again)"
    )

    private func session(for account: IdentityStore.LinkedAccount, identity: VerifiedIdentity, logger: Logger)
        async throws -> LoginResponse
    {
        let session = try await Sessions(deps: deps).start(
            userId: account.userId, credentialHash: identity.credentialHash, logger: logger)
        logger.info(
            "federated login", metadata: ["user_id": "\(account.userId)", "provider": "\(identity.provider.rawValue)"])
        return LoginResponse(
            userId: account.userId, email: account.email, nick: account.nick, profileImage: account.profileImage,
            accessToken: session.accessToken, refreshToken: session.refreshToken)
    }

    private func createAccount(for identity: VerifiedIdentity, suggestedNick: String?, context: APIRequestContext)
        async throws -> IdentityStore.LinkedAccount
    {
        let logger = context.logger
        var nextNick = try await usableSuggestion(suggestedNick, logger: logger) ?? RandomNick.make()
        for _ in 1...RandomNick.attempts {
            let userId = ObjectID.generate(), nick = nextNick
            let email = identity.provider.syntheticEmail(userId: userId)
            let now = Date()
            let event = UserRegistered(
                userId: userId, email: email, nick: nick, phoneNum: identity.phoneNumber, birthDay: nil,
                profileImage: nil, registeredAt: now)
            let ticket = deps.outbox.readYourWrites()
            do {
                try await deps.postgres.transaction(logger: logger) { connection in
                    try await deps.store.insert(
                        userId: userId, email: email, nick: nick, passwordHash: nil, phoneNum: identity.phoneNumber,
                        birthDay: nil, createdAt: now, on: connection, logger: logger)
                    try await deps.identities.link(
                        provider: identity.provider, subject: identity.subject, userId: userId,
                        phoneNumber: identity.phoneNumber, at: now, on: connection, logger: logger)
                    try await deps.outbox.append(
                        event, aggregateId: userId, trace: context.trace, awaitedBy: ticket,
                        on: connection, logger: logger)
                }
                await ticket.wait(logger: logger)  // the app opens "my info" next (decision 0013)
                logger.info(
                    "account created by federated sign-in",
                    metadata: ["user_id": "\(userId)", "provider": "\(identity.provider.rawValue)"])
                return IdentityStore.LinkedAccount(userId: userId, email: email, nick: nick, profileImage: nil)
            } catch AccountStore.InsertConflict.nick {
                nextNick = RandomNick.make()  // taken meanwhile (or the suggestion lost a race): draw again
            }
        }
        throw APIError.unavailable("닉네임을 만들지 못했습니다. 다시 시도해주세요. (could not find a free nickname, try again)")
    }

    /// Apple's suggested nick, if it follows the nick rules and is free now; otherwise nil (a generated one is used).
    private func usableSuggestion(_ nick: String?, logger: Logger) async throws -> String? {
        guard let nick, !nick.isEmpty, (try? deps.rules.validateNick(nick)) != nil else { return nil }
        return try await deps.store.nickInUse(nick, logger: logger) ? nil : nick
    }
}
