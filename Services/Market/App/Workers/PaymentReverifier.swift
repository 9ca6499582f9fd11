import Foundation
import Logging
import SNSPlatform
import ServiceLifecycle

/// Finishes what could not be finished while someone waited: pending claims (PortOne was unreachable, the
/// payment was not paid yet, the post was not known yet) are verified again with exponential backoff until
/// they settle or grow older than `maxAge`; refunds that could not reach PortOne are retried the same way.
/// Replicas share the work: each due row is leased (its next attempt pushed ahead) before it is worked on.
package struct PaymentReverifier: Service {
    let verification: PaymentVerification
    let store: MarketStore
    let interval: Duration
    let maxAge: TimeInterval
    let batchSize: Int = 20
    let logger: Logger
    /// Opened once the migrations ran: the first round must not run before the tables exist.
    var startGate: StartGate? = nil

    package func run() async throws {
        if let startGate {
            do { try await startGate.wait() } catch { return }
        }
        logger.info("payment re-verifier started", metadata: ["interval_ms": "\(Int(interval.milliseconds))"])
        // A round in progress is finished; only the wait between rounds is cut short by a graceful shutdown.
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let report = try await runOnce()
                if report.worked > 0 { logger.info("re-verified pending payments", metadata: report.metadata) }
            } catch {
                logger.error(
                    "payment re-verification round failed", metadata: ["error": "\(String(reflecting: error))"])
            }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            } catch {
                break
            }
        }
        logger.info("payment re-verifier stopped")
    }

    struct Report: Sendable, Equatable {
        var recorded = 0, rejected = 0, postponed = 0, expired = 0, cancelsDone = 0, cancelsPending = 0
        var worked: Int { recorded + rejected + postponed + expired + cancelsDone + cancelsPending }
        var metadata: Logger.Metadata {
            [
                "recorded": "\(recorded)", "rejected": "\(rejected)", "postponed": "\(postponed)",
                "expired": "\(expired)",
                "cancels_done": "\(cancelsDone)", "cancels_pending": "\(cancelsPending)",
            ]
        }
    }

    /// One round. `asOf` lets tests treat every scheduled retry as due without waiting for it.
    func runOnce(asOf: Date = Date()) async throws -> Report {
        var report = Report()
        let lease = Duration.seconds(120)
        // One claim at a time, each with its own error handling; a shutdown or a PortOne outage ends the round early
        // (every step is idempotent, and what is left is leased again later).
        for (claim, attempts, age) in try await store.leaseDueClaims(
            limit: batchSize, lease: lease, asOf: asOf, logger: logger)
        {
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            var logger = logger
            logger[metadataKey: "imp_uid"] = .string(claim.impUid)
            let settlement: PaymentVerification.Settlement
            do {
                settlement =
                    age > maxAge
                    ? try await verification.expire(claim, logger: logger)
                    : try await verification.settle(
                        claim, recordedBy: .reverifier, trace: TraceContext(requestId: nil), logger: logger)
            } catch {
                logger.error(
                    "could not re-verify a claim; it is retried later",
                    metadata: ["error": "\(String(reflecting: error))"])
                report.postponed += 1
                continue
            }
            switch settlement {
            case .recorded, .alreadyRecorded:
                report.recorded += 1
            case .rejected:
                if age > maxAge { report.expired += 1 } else { report.rejected += 1 }
            case .notYetPaid, .productUnknown, .unreachable:
                let delay = Backoff.delay(attempt: attempts + 1, base: interval, cap: .seconds(3600))
                try await store.postponeClaim(
                    impUid: claim.impUid, delay: delay, reason: "\(settlement)", logger: logger)
                report.postponed += 1
                // PortOne is down: the rest waits for the next round
                if case .unreachable = settlement { return report }
            }
        }
        for (impUid, paidAmount, attempts) in try await store.leaseDueCancels(
            limit: batchSize, lease: lease, asOf: asOf, logger: logger)
        {
            if Task.isShuttingDownGracefully || Task.isCancelled { break }
            do {
                switch try await verification.retryCancel(
                    impUid: impUid, paidAmount: paidAmount, attempts: attempts, retryBase: interval, logger: logger)
                {
                case .done, .refused, .notNeeded: report.cancelsDone += 1
                case .pending: report.cancelsPending += 1; return report
                }
            } catch {
                logger.error(
                    "could not retry a refund; it is retried later",
                    metadata: ["imp_uid": "\(impUid)", "error": "\(error)"])
                report.cancelsPending += 1
            }
        }
        return report
    }
}
