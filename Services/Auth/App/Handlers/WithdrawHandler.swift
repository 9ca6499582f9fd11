import Foundation
import HTTPTypes
import Hummingbird
import SNSPlatform

/// `GET /v1/users/withdraw` → `{user_id, email, nick}`. In one transaction: the account is marked withdrawn
/// (email and nick become free), every session is revoked, its federated identities are released, and `user-withdrawn` goes to the outbox so every
/// other service hides the user's content and stops accepting the user's tokens.
struct WithdrawHandler: Sendable {
    let deps: AuthDependencies

    func handle(_ request: Request, context: APIRequestContext) async throws -> Response {
        try .json(try await withdraw(request, context: context))
    }

    /// The withdrawal itself, shared by the G1 and G0 encodings.
    func withdraw(_ request: Request, context: APIRequestContext) async throws -> AccountSummary {
        let user = try context.requireUser()
        let now = Date()
        let ticket = deps.outbox.readYourWrites()
        let summary = try await deps.postgres.transaction(logger: context.logger) { connection -> AccountSummary? in
            guard
                let summary = try await deps.store.withdraw(
                    userId: user.userId, at: now, on: connection, logger: context.logger)
            else {
                return nil
            }
            try await deps.store.revokeSessions(
                userId: user.userId, sessionId: nil, on: connection, logger: context.logger)
            // Federated identities (Firebase, Apple, Kakao) no longer sign into this account (decision 0012).
            try await deps.identities.release(userId: user.userId, at: now, on: connection, logger: context.logger)
            try await deps.outbox.append(
                UserWithdrawn(userId: user.userId, withdrawnAt: now), aggregateId: user.userId,
                trace: context.trace, awaitedBy: ticket, on: connection, logger: context.logger)
            return summary
        }
        guard let summary else { throw APIError.unauthorized("탈퇴한 계정입니다. (account already withdrawn)") }
        // Every service refuses the token through its own read model: answer once they all know (decision 0013).
        await ticket.wait(logger: context.logger)
        context.logger.info("account withdrawn", metadata: ["user_id": "\(user.userId)"])
        return summary
    }
}
