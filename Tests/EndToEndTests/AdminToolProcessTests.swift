import Foundation
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// The real `sns-admin` executable against the test stack: JSON on stdout only, tables otherwise, clear errors
/// with non-zero exit codes.
@Suite("sns-admin executable")
struct AdminToolProcessTests {
    func admin(_ arguments: [String]) async throws -> AdminRun {
        try await AdminProcess.run(
            arguments, databaseURL: try TestEnvironment.databaseURL(), brokers: try TestEnvironment.kafkaBrokers())
    }

    @Test func jsonOutputsParseAndCoverEveryService() async throws {
        let status = try await admin(["outbox", "status", "--json"])
        #expect(status.status == 0, "\(status.stderr)")
        let services = try #require(
            try JSONSerialization.jsonObject(with: Data(status.stdout.utf8)) as? [[String: Any]])
        #expect(Set(services.compactMap { $0["service"] as? String }) == Set(SystemCatalog.services.map(\.name)))
        #expect(services.allSatisfy { $0["migrated"] as? Bool == true })

        let topics = try await admin(["topics", "--json"])
        #expect(topics.status == 0, "\(topics.stderr)")
        let names = (try JSONSerialization.jsonObject(with: Data(topics.stdout.utf8)) as? [[String: Any]])?.compactMap {
            $0["name"] as? String
        }
        #expect(Set(names ?? []).isSuperset(of: ["sns.users", "sns.posts", "sns.payments", "sns.dead-letter"]))

        let plan = try await admin(["republish", "--service", "all", "--dry-run", "--json"])
        #expect(plan.status == 0, "\(plan.stderr)")
        #expect(
            (try JSONSerialization.jsonObject(with: Data(plan.stdout.utf8)) as? [[String: Any]])?.count
                == SystemCatalog.services.count)

        let replayPlan = try await admin([
            "replay", "--group", "market-products", "--from-beginning", "--dry-run", "--json",
        ])
        #expect(replayPlan.status == 0, "\(replayPlan.stderr)")

        // Every consumer group of the catalog on every topic it reads (other tests write meanwhile: the lag's value
        // is not checked here; the resilience tests wait for it to reach zero).
        let lag = try await admin(["lag", "--json"])
        #expect(lag.status == 0, "\(lag.stderr)")
        let rows = try #require(
            (try JSONSerialization.jsonObject(with: Data(lag.stdout.utf8)) as? [String: Any])?["rows"]
                as? [[String: Any]])
        let pairs = Set(rows.compactMap { row in (row["group"] as? String).map { "\($0) \(row["topic"] ?? "")" } })
        #expect(pairs == Set(SystemCatalog.consumers.flatMap { group in group.topics.map { "\(group.group) \($0)" } }))
        #expect(rows.allSatisfy { ($0["lag"] as? Int).map { $0 >= 0 } == true })
    }

    /// A sign-up's `user-registered` found by `tail --key`, with its envelope's identity, and nothing else. `tail`
    /// shows the topic's records as they are: delivery is at least once (a send retried under load may store the
    /// record twice, which consumers drop by its event id), so the check is one event, not one record.
    @Test func tailFiltersByKeyAndType() async throws {
        let gateway = try GatewayClient()
        let nick = TestEnvironment.unique("tail")
        let joined = try await gateway.send(
            "POST", "/v1/users/join",
            json: #"{"email":"\#(nick)@example.com","password":"password123","nick":"\#(nick)"}"#)
        let userId = try #require(try joined.json.string("user_id"))
        let filter = ["tail", "sns.users", "--key", userId, "--type", "user-registered", "--json"]
        try await eventually("the sign-up's event on sns.users") { try await !admin(filter).stdout.isEmpty }
        let tail = try await admin(filter)
        #expect(tail.status == 0, "\(tail.stderr)")
        let events = tail.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(!events.isEmpty)
        #expect(Set(events.compactMap { $0["event_id"] as? String }).count == 1, "one event: \(tail.stdout)")
        #expect(events.allSatisfy { $0["key"] as? String == userId })
        #expect(events.allSatisfy { $0["type"] as? String == "user-registered" })
        #expect((events.first?["event_id"] as? String)?.count == 36)
        let other = try await admin(["tail", "sns.users", "--key", userId, "--type", "user-withdrawn", "--json"])
        #expect(other.status == 0 && other.stdout.isEmpty)
    }

    /// A dead letter parked the way a consumer parks one, dropped by one operator: naming it in `dlq retry`
    /// (or `drop`) again is refused with its state and sends nothing; `dlq list` shows it only with `--all`.
    @Test func aHandledDeadLetterIsNotRetriedOrDroppedAgain() async throws {
        let consumer = TestEnvironment.unique("dlq-proc-")
        try await TestPlatform.with { platform in
            _ = try await platform.producer.send(
                KafkaOutgoingMessage(
                    topic: Topic.deadLetter, key: Array("k".utf8), value: Array("not an envelope".utf8),
                    headers: [
                        KafkaHeader(key: EventHeader.dlqReason, string: "test poison"),
                        KafkaHeader(key: EventHeader.dlqConsumer, string: consumer),
                        KafkaHeader(key: EventHeader.dlqOriginalTopic, string: "test.\(consumer)"),
                        KafkaHeader(key: EventHeader.dlqFailedAt, string: APIDateFormat.string(from: Date())),
                    ]))
        }
        @Sendable func letters(_ extra: [String] = []) async throws -> [[String: Any]] {
            let list = try await admin(["dlq", "list", "--consumer", consumer, "--json"] + extra)
            return (try? JSONSerialization.jsonObject(with: Data(list.stdout.utf8)) as? [[String: Any]]) ?? []
        }
        try await eventually("the parked message listed") { try await letters().count == 1 }
        let id = try #require(try await letters().first?["id"] as? String)

        let drop = try await admin(["dlq", "drop", id, "--reason", "test", "--json"])
        #expect(drop.status == 0, "\(drop.stderr)")
        #expect(try await letters().isEmpty)
        #expect(try await letters(["--all"]).first?["state"] as? String == "dropped")

        let retry = try await admin(["dlq", "retry", id])
        #expect(retry.status != 0)
        #expect(retry.stderr.contains("was already dropped"), "\(retry.stderr)")
        let again = try await admin(["dlq", "drop", id])
        #expect(again.status != 0)
        #expect(try await letters(["--all"]).first?["state"] as? String == "dropped")
    }

    @Test func mistakesExitNonZeroWithAReason() async throws {
        let unknownService = try await admin(["republish", "--service", "nope", "--dry-run"])
        #expect(unknownService.status != 0)
        #expect(unknownService.stderr.contains("unknown service 'nope'"))

        let noStart = try await admin(["replay", "--group", "social-projections"])
        #expect(noStart.status != 0)
        #expect(noStart.stderr.contains("--from-beginning"))

        let unknownGroup = try await admin(["replay", "--group", "nobody", "--from-beginning", "--dry-run"])
        #expect(unknownGroup.status != 0)
        #expect(unknownGroup.stderr.contains("unknown consumer group"))
        let unknownLagGroup = try await admin(["lag", "--group", "nobody"])
        #expect(unknownLagGroup.status != 0)
        #expect(unknownLagGroup.stderr.contains("unknown consumer group"))

        // (A rebuild refused while the service runs is tested on a private mini-stack, FaultToleranceTests: the
        // refusal joins the consumer group, and on the shared stack that rebalance stalled `social-projections`
        // for every other test for ~50 s — the read-your-writes timeouts seen in some full runs.)

        let badType = try await admin(["republish", "--service", "posts", "--type", "post-exploded", "--dry-run"])
        #expect(badType.status != 0)
        #expect(badType.stderr.contains("unknown event type"))

        let noDatabase = try await admin(["outbox", "status", "--database-url", "postgres://sns:sns@127.0.0.1:1/sns"])
        #expect(noDatabase.status != 0)
        #expect(noDatabase.stderr.contains("cannot connect to PostgreSQL"), "\(noDatabase.stderr)")
    }
}
