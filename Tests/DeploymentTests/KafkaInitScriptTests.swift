import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// deploy/kafka/create-topics.sh run against a stand-in kafka-topics.sh (no Kafka here): it creates every
/// topic compose lists, with the catalog's partitions, and refuses a topic that has fewer.
@Suite("Kafka init script")
struct KafkaInitScriptTests {
    /// A kafka-topics.sh that records its calls and keeps topics as files holding their partition count.
    static let standIn = #"""
        #!/bin/bash
        echo "$*" >>"$STUB_STATE/calls"
        while [ $# -gt 0 ]; do
          case "$1" in
            --list|--create|--describe) action="$1" ;;
            --topic) topic="$2"; shift ;;
            --partitions) partitions="$2"; shift ;;
          esac
          shift
        done
        case "$action" in
          --create) [ -f "$STUB_STATE/$topic" ] || echo "$partitions" >"$STUB_STATE/$topic" ;;
          --describe) printf 'Topic: %s\tTopicId: x\tPartitionCount: %s\tReplicationFactor: 1\tConfigs: \n' "$topic" "$(cat "$STUB_STATE/$topic")"
                      printf '\tTopic: %s\tPartition: 0\tLeader: 1\n' "$topic" ;;
        esac
        """#

    struct Run {
        var status: Int32
        var calls: [String]
    }

    func run(existing: [String: Int] = [:]) throws -> Run {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sns-kafka-init-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let tool = directory.appendingPathComponent("kafka-topics.sh")
        try Self.standIn.write(to: tool, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: tool.path)
        for (topic, partitions) in existing {
            try "\(partitions)\n".write(to: directory.appendingPathComponent(topic), atomically: true, encoding: .utf8)
        }
        let compose = try ComposeFile.load()
        let initStep = try #require(compose["kafka-init"])
        let process = try ChildProcess.spawn(
            "/bin/bash", arguments: [Repository.url("deploy/kafka/create-topics.sh").path],
            environment: [
                "PATH": "/usr/bin:/bin", "KAFKA_BIN": directory.path, "STUB_STATE": directory.path,
                "TOPICS": try #require(initStep.environment["TOPICS"]), "BOOTSTRAP": "kafka:9092",
                "REPLICATION_FACTOR": "1", "RETENTION_MS": "-1",
            ])
        let status: Int32 =
            switch process.waitUntilExit() {
            case .exited(let code): code
            case .signalled(let number): 128 + number
            }
        let calls = (try? String(contentsOf: directory.appendingPathComponent("calls"), encoding: .utf8)) ?? ""
        return Run(status: status, calls: calls.split(separator: "\n").map(String.init))
    }

    @Test func createsEveryCatalogTopicWithItsPartitionsAndUnlimitedRetention() throws {
        let result = try run()
        #expect(result.status == 0)
        for (name, partitions) in Topic.catalog {
            let create =
                "--bootstrap-server kafka:9092 --create --if-not-exists --topic \(name) --partitions \(partitions) --replication-factor 1 --config retention.ms=-1"
            #expect(result.calls.contains(create), "no call: \(create)")
        }
    }

    @Test func existingTopicsAreKeptButTooFewPartitionsStopTheStart() throws {
        #expect(
            try run(existing: ["sns.posts": 12]).status == 0,
            "more partitions than the catalog is the operator's choice")
        #expect(
            try run(existing: ["sns.posts": 3]).status != 0,
            "fewer partitions than the catalog must stop the services' start")
    }
}
