import Foundation
import Logging
import PostgresNIO
import SNSPlatform

/// SQL over the market schema. Every statement binds its values.
struct MarketStore: Sendable {
    let client: DatabasePool
    let schema: SQLIdentifier

    /// `GET /v1/payments/me` returns at most this many payments, newest first (the contract has no paging here).
    static let historyLimit = 1_000

    // MARK: Products (read model)

    struct Product: Sendable, Equatable {
        var postId: String
        var sellerId: String
        var title: String?
        var price: Int?
        var deleted: Bool
    }

    /// The post as the market knows it; a post of a withdrawn seller counts as deleted (it vanished everywhere).
    func product(_ postId: String, logger: Logger) async throws -> Product? {
        let s = schema
        let rows = try await client.query(
            """
            SELECT p.post_id, p.seller_id, p.title, p.price,
                   p.deleted_at IS NOT NULL OR EXISTS (SELECT 1 FROM \(table: s, "withdrawn_users") w WHERE w.user_id = p.seller_id)
            FROM \(table: s, "products") p WHERE p.post_id = \(postId)
            """, logger: logger)
        for try await row in rows.decode((String, String, String?, Int?, Bool).self) {
            return Product(postId: row.0, sellerId: row.1, title: row.2, price: row.3, deleted: row.4)
        }
        return nil
    }

    func isActive(userId: String, logger: Logger) async throws -> Bool {
        let s = schema
        let rows = try await client.query(
            "SELECT 1 FROM \(table: s, "withdrawn_users") WHERE user_id = \(userId)", logger: logger)
        for try await _ in rows.decode(Int.self) { return false }
        return true
    }

    // MARK: Payments

    func payment(impUid: String, logger: Logger) async throws -> PaymentRecord? {
        let s = schema
        let rows = try await client.query(
            """
            SELECT payment_id, imp_uid, merchant_uid, buyer_id, post_id, product_name, price, paid_at, acknowledged
            FROM \(table: s, "payments") WHERE imp_uid = \(impUid)
            """, logger: logger)
        for try await row in rows.decode(PaymentRecord.Row.self) { return PaymentRecord(row) }
        return nil
    }

    enum InsertOutcome { case inserted, duplicate }

    /// Inserts a verified payment; `duplicate` when its `imp_uid` or `merchant_uid` is already recorded.
    func insert(_ payment: PaymentRecord, recordedBy: String, on connection: PostgresConnection, logger: Logger)
        async throws -> InsertOutcome
    {
        let s = schema
        let rows = try await connection.query(
            """
            INSERT INTO \(table: s, "payments")
                (payment_id, imp_uid, merchant_uid, buyer_id, post_id, product_name, price, paid_at, recorded_by, acknowledged)
            VALUES (\(payment.paymentId), \(payment.impUid), \(payment.merchantUid), \(payment.buyerId), \(payment.postId),
                    \(payment.productName), \(payment.price), \(payment.paidAt), \(recordedBy), \(payment.acknowledged))
            ON CONFLICT DO NOTHING
            RETURNING 1
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return .inserted }
        return .duplicate
    }

    /// Marks a payment completed in the background as answered to its buyer; false if it already was (or is
    /// someone else's), so exactly one app call gets the 200.
    func acknowledge(impUid: String, buyerId: String, logger: Logger) async throws -> Bool {
        let s = schema
        let rows = try await client.query(
            """
            UPDATE \(table: s, "payments") SET acknowledged = true
            WHERE imp_uid = \(impUid) AND buyer_id = \(buyerId) AND NOT acknowledged
            RETURNING 1
            """, logger: logger)
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func history(buyerId: String, logger: Logger) async throws -> [PaymentRecord] {
        let s = schema
        let limit = Self.historyLimit
        let rows = try await client.query(
            """
            SELECT payment_id, imp_uid, merchant_uid, buyer_id, post_id, product_name, price, paid_at, acknowledged
            FROM \(table: s, "payments") WHERE buyer_id = \(buyerId)
            ORDER BY paid_at DESC, seq DESC LIMIT \(limit)
            """, logger: logger)
        var payments: [PaymentRecord] = []
        for try await row in rows.decode(PaymentRecord.Row.self) { payments.append(PaymentRecord(row)) }
        return payments
    }

    // MARK: Claims

    /// Records that `claim.buyerId` asked for `claim.impUid` (first claimant wins) and returns the stored claim.
    /// - Parameter firstRetry: when the re-verifier may first look at a new claim (not while the call that made it
    ///   is still settling it).
    func claim(_ claim: Claim, firstRetry: Duration = .seconds(30), logger: Logger) async throws -> Claim {
        let s = schema
        let delay = firstRetry.timeInterval
        // ON CONFLICT DO UPDATE (a no-op update) returns the row that won, also when a concurrent transaction
        // inserted it after this statement's snapshot was taken (DO NOTHING + a SELECT would see nothing then).
        let rows = try await client.query(
            """
            INSERT INTO \(table: s, "claims") (imp_uid, buyer_id, post_id, product_name, stated_price, source, next_attempt_at)
            VALUES (\(claim.impUid), \(claim.buyerId), \(claim.postId), \(claim.productName), \(claim.statedPrice),
                    \(claim.source.rawValue), now() + make_interval(secs => \(delay)))
            ON CONFLICT (imp_uid) DO UPDATE SET updated_at = \(table: s, "claims").updated_at
            RETURNING imp_uid, buyer_id, post_id, product_name, source, state, stated_price
            """, logger: logger)
        for try await row in rows.decode(Claim.Row.self) { return Claim(row) }
        throw MarketStoreError.noRowReturned("claim upsert")
    }

    func existingClaim(impUid: String, logger: Logger) async throws -> Claim? {
        let s = schema
        let rows = try await client.query(
            """
            SELECT imp_uid, buyer_id, post_id, product_name, source, state, stated_price FROM \(table: s, "claims")
            WHERE imp_uid = \(impUid)
            """, logger: logger)
        for try await row in rows.decode(Claim.Row.self) { return Claim(row) }
        return nil
    }

    /// Ends a pending claim as `rejected` or `expired` (a recording or a refund takes it with `takeClaim`).
    func settleClaim(
        impUid: String, state: Claim.State, reason: String?, on connection: PostgresConnection? = nil, logger: Logger
    ) async throws {
        let s = schema
        let query: PostgresQuery = """
            UPDATE \(table: s, "claims") SET state = \(state.rawValue), last_error = coalesce(\(reason), last_error), updated_at = now()
            WHERE imp_uid = \(impUid) AND state = 'pending'
            """
        if let connection {
            try await connection.query(query, logger: logger)
        } else {
            try await client.query(query, logger: logger)
        }
    }

    /// The claim is the gate between recording and refunding: exactly one of them takes it out of `pending`
    /// (or `expired`). Returns whether this caller took it.
    func takeClaim(
        impUid: String, to state: Claim.State, reason: String?, on connection: PostgresConnection? = nil,
        logger: Logger
    ) async throws -> Bool {
        let s = schema
        let query: PostgresQuery = """
            UPDATE \(table: s, "claims") SET state = \(state.rawValue), last_error = coalesce(\(reason), last_error), updated_at = now()
            WHERE imp_uid = \(impUid) AND state IN ('pending', 'expired')
            RETURNING 1
            """
        let rows =
            if let connection { try await connection.query(query, logger: logger) } else {
                try await client.query(query, logger: logger)
            }
        for try await _ in rows.decode(Int.self) { return true }
        return false
    }

    func deleteClaim(impUid: String, logger: Logger) async throws {
        let s = schema
        try await client.query(
            "DELETE FROM \(table: s, "claims") WHERE imp_uid = \(impUid) AND state <> 'completed'", logger: logger)
    }

    /// Leaves a claim pending and schedules its next verification after `delay`.
    func postponeClaim(impUid: String, delay: Duration, reason: String, logger: Logger) async throws {
        let s = schema
        let seconds = delay.timeInterval
        try await client.query(
            """
            UPDATE \(table: s, "claims")
            SET attempts = attempts + 1, next_attempt_at = now() + make_interval(secs => \(seconds)), last_error = \(reason), updated_at = now()
            WHERE imp_uid = \(impUid) AND state = 'pending'
            """, logger: logger)
    }

    /// Takes up to `limit` due pending claims for this worker: each is leased (its next attempt pushed `lease`
    /// ahead) so other replicas skip it while it is verified, without holding a transaction open over HTTP calls.
    func leaseDueClaims(limit: Int, lease: Duration, asOf: Date, logger: Logger) async throws -> [(
        claim: Claim, attempts: Int, age: TimeInterval
    )] {
        let s = schema
        let seconds = lease.timeInterval
        let rows = try await client.query(
            """
            UPDATE \(table: s, "claims") c SET next_attempt_at = greatest(now(), \(asOf)) + make_interval(secs => \(seconds))
            FROM (SELECT imp_uid FROM \(table: s, "claims") WHERE state = 'pending' AND next_attempt_at <= \(asOf)
                  ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED) due
            WHERE c.imp_uid = due.imp_uid
            RETURNING c.imp_uid, c.buyer_id, c.post_id, c.product_name, c.source, c.state, c.attempts,
                      extract(epoch FROM now() - c.created_at)::float8, c.stated_price
            """, logger: logger)
        var leased: [(Claim, Int, TimeInterval)] = []
        for try await row in rows.decode((String, String, String, String?, String, String, Int, Double, Int?).self) {
            leased.append((Claim((row.0, row.1, row.2, row.3, row.4, row.5, row.8)), row.6, row.7))
        }
        return leased
    }

    // MARK: Rejections and cancels

    func recordRejection(_ rejection: Rejection, logger: Logger) async throws {
        let s = schema
        try await client.query(
            """
            INSERT INTO \(table: s, "rejections")
                (imp_uid, merchant_uid, buyer_id, post_id, reason, paid_amount, expected_amount, cancel_state, last_error)
            VALUES (\(rejection.impUid), \(rejection.merchantUid), \(rejection.buyerId), \(rejection.postId), \(rejection.reason),
                    \(rejection.paidAmount), \(rejection.expectedAmount), \(rejection.cancelState.rawValue), \(rejection.lastError))
            ON CONFLICT (imp_uid) DO UPDATE SET
                reason = EXCLUDED.reason, paid_amount = EXCLUDED.paid_amount, expected_amount = EXCLUDED.expected_amount,
                -- A finished refund stays finished; a pending one is only replaced by an outcome of that refund.
                cancel_state = CASE
                    WHEN \(table: s, "rejections").cancel_state = 'done' THEN 'done'
                    WHEN \(table: s, "rejections").cancel_state = 'pending' AND EXCLUDED.cancel_state = 'not_needed' THEN 'pending'
                    ELSE EXCLUDED.cancel_state END,
                last_error = EXCLUDED.last_error, updated_at = now()
            """, logger: logger)
    }

    func rejection(impUid: String, logger: Logger) async throws -> Rejection? {
        let s = schema
        let rows = try await client.query(
            """
            SELECT imp_uid, merchant_uid, buyer_id, post_id, reason, paid_amount, expected_amount, cancel_state, last_error
            FROM \(table: s, "rejections") WHERE imp_uid = \(impUid)
            """, logger: logger)
        for try await row in rows.decode((String, String?, String?, String?, String, Int?, Int?, String, String?).self)
        {
            return Rejection(
                impUid: row.0, merchantUid: row.1, buyerId: row.2, postId: row.3, reason: row.4, paidAmount: row.5,
                expectedAmount: row.6, cancelState: Rejection.CancelState(rawValue: row.7) ?? .pending, lastError: row.8
            )
        }
        return nil
    }

    /// Leases due pending cancels (see `leaseDueClaims`).
    func leaseDueCancels(limit: Int, lease: Duration, asOf: Date, logger: Logger) async throws -> [(
        impUid: String, paidAmount: Int, attempts: Int
    )] {
        let s = schema
        let seconds = lease.timeInterval
        let rows = try await client.query(
            """
            UPDATE \(table: s, "rejections") r SET next_attempt_at = greatest(now(), \(asOf)) + make_interval(secs => \(seconds))
            FROM (SELECT imp_uid FROM \(table: s, "rejections") WHERE cancel_state = 'pending' AND next_attempt_at <= \(asOf)
                  ORDER BY next_attempt_at LIMIT \(limit) FOR UPDATE SKIP LOCKED) due
            WHERE r.imp_uid = due.imp_uid
            RETURNING r.imp_uid, coalesce(r.paid_amount, 0), r.cancel_attempts
            """, logger: logger)
        var leased: [(String, Int, Int)] = []
        for try await row in rows.decode((String, Int, Int).self) { leased.append(row) }
        return leased
    }

    func updateCancel(
        impUid: String, state: Rejection.CancelState, retryAfter: Duration?, error: String?, logger: Logger
    ) async throws {
        let s = schema
        let seconds = retryAfter?.timeInterval ?? 0
        try await client.query(
            """
            UPDATE \(table: s, "rejections")
            SET cancel_state = \(state.rawValue), cancel_attempts = cancel_attempts + 1,
                next_attempt_at = now() + make_interval(secs => \(seconds)), last_error = \(error), updated_at = now()
            WHERE imp_uid = \(impUid) AND cancel_state = 'pending'
            """, logger: logger)
    }
}

enum MarketStoreError: Error { case noRowReturned(String) }
