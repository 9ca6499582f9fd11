import ArgumentParser
import Foundation
import NIOCore
import SNSContract

struct DevBrokerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-dev-broker",
        abstract: "In-memory Kafka-protocol broker (librdkafka mock cluster) for development and tests."
    )

    /// The system's topic catalog (one source of truth: `Topic.catalog` in SNSContract).
    static let defaultTopics: [TopicSpec] = Topic.catalog.map {
        TopicSpec(name: $0.name, partitions: Int32($0.partitions))
    }

    @Option(help: "Number of mock brokers.")
    var brokers: Int = 1

    @Option(help: "Write the bootstrap address list to this file (atomically) once topics exist.")
    var addressFile: String?

    @Option(name: .customLong("topic"), help: "Extra topic as name:partitions (repeatable).")
    var topics: [TopicSpec] = []

    @Flag(help: "Do not create the default sns.* topics.")
    var noDefaultTopics = false

    @Flag(help: "Show librdkafka's informational log lines too.")
    var verbose = false

    @Flag(
        help: ArgumentHelp(
            "Let clients talk to the mock directly (no long-poll front).",
            discussion: "An empty fetch is then answered only after the consumer's fetch.wait.max.ms, whatever is "
                + "produced meanwhile; through the front it is answered as soon as something is (decision 0049)."))
    var noLongPoll = false

    func validate() throws {
        guard brokers >= 1 else { throw ValidationError("--brokers must be at least 1") }
    }

    func run() throws {
        let signals = BrokerSignals()
        let cluster = try MockCluster.start(brokers: Int32(brokers), verbose: verbose)
        let catalog = (noDefaultTopics ? [] : Self.defaultTopics) + topics
        for topic in catalog {
            try cluster.createTopic(topic)
            log("created topic \(topic.name) (\(topic.partitions) partitions)")
        }
        var bootstraps = cluster.bootstraps
        var front: LongPollFront?
        if !noLongPoll, brokers == 1 {
            try cluster.capVersionsForTheFront()
            let started = try LongPollFront.start(host: "127.0.0.1", upstream: try Self.address(bootstraps))
            bootstraps = "127.0.0.1:\(started.port)"
            front = started
        }
        if let addressFile {
            try writeAtomically(bootstraps, to: addressFile)
        }
        print("sns-dev-broker listening on \(bootstraps)")
        fflush(nil)  // flush stdout (all C streams) so scripts reading the line see it now

        withExtendedLifetime(signals) {
            while true {
                switch signals.wait() {
                case .outageStart:
                    cluster.setAllBrokers(up: false)
                    do { try front?.setAccepting(false) } catch { log("the front did not stop listening: \(error)") }
                    log("SIGUSR1: simulated outage — connections dropped and refused until SIGUSR2 (data kept)")
                case .outageEnd:
                    cluster.setAllBrokers(up: true)
                    do { try front?.setAccepting(true) } catch { log("the front did not listen again: \(error)") }
                    log("SIGUSR2: outage over, accepting connections again")
                case .terminate(let name):
                    log("received \(name), shutting down")
                    front?.stop()
                    cluster.destroy()
                    if let addressFile {
                        unlink(addressFile)  // a stale address would point at a dead broker
                    }
                    return
                }
            }
        }
    }
}

extension DevBrokerCommand {
    /// The mock's one broker, from its bootstrap list (`host:port`).
    static func address(_ bootstraps: String) throws -> SocketAddress {
        guard let colon = bootstraps.lastIndex(of: ":"), let port = Int(bootstraps[bootstraps.index(after: colon)...])
        else { throw ValidationError("cannot read the mock's address from \(bootstraps)") }
        return try SocketAddress(ipAddress: String(bootstraps[..<colon]), port: port)
    }
}

/// `name:partitions`.
struct TopicSpec: ExpressibleByArgument, Sendable {
    var name: String
    var partitions: Int32

    init(name: String, partitions: Int32) {
        self.name = name
        self.partitions = partitions
    }

    init?(argument: String) {
        guard let colon = argument.lastIndex(of: ":"),
            let partitions = Int32(argument[argument.index(after: colon)...]), partitions > 0,
            colon != argument.startIndex
        else { return nil }
        self.init(name: String(argument[..<colon]), partitions: partitions)
    }
}

func log(_ line: String) {
    FileHandle.standardError.write(Data("sns-dev-broker: \(line)\n".utf8))
}

/// Writes `contents` (no trailing newline) to a temporary file next to `path`, then renames it.
func writeAtomically(_ contents: String, to path: String) throws {
    let temporary = "\(path).tmp.\(getpid())"
    try Data(contents.utf8).write(to: URL(fileURLWithPath: temporary))
    guard rename(temporary, path) == 0 else {
        let reason = String(cString: strerror(errno))
        unlink(temporary)
        throw ValidationError("cannot write \(path): \(reason)")
    }
}
