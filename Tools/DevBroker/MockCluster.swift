import CRDKafka
import Foundation

/// An rd_kafka mock cluster and the (otherwise idle) producer handle it is attached to.
/// Used from the main thread only.
final class MockCluster {
    private let rk: OpaquePointer
    private var cluster: OpaquePointer?

    private init(rk: OpaquePointer, cluster: OpaquePointer) {
        self.rk = rk
        self.cluster = cluster
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Kept as a plain static factory (no throwing closures around C buffers; see SNSKafka notes).
    static func start(brokers: Int32, verbose: Bool) throws -> MockCluster {
        let conf = rd_kafka_conf_new()
        var errorBuffer = [CChar](repeating: 0, count: 512)
        // Level 4 (warning) hides the harmless "No bootstrap.servers configured" notice.
        _ = rd_kafka_conf_set(conf, "log_level", verbose ? "7" : "4", &errorBuffer, errorBuffer.count)
        // The mock brokers' own sockets take their options from this handle. With Nagle's algorithm on, the answers
        // to a client's pipelined requests (librdkafka sends one produce request per partition) waited for the
        // client's delayed ACK: ~50 ms per relay batch, whatever its size (bench/results/2026-11-24-batches-and-event-loops.md).
        _ = rd_kafka_conf_set(conf, "socket.nagle.disable", "true", &errorBuffer, errorBuffer.count)
        let rk = rd_kafka_new(RD_KAFKA_PRODUCER, conf, &errorBuffer, errorBuffer.count)
        guard let rk else {
            rd_kafka_conf_destroy(conf)
            throw Failure(description: "rd_kafka_new: \(decode(errorBuffer))")
        }
        guard let cluster = rd_kafka_mock_cluster_new(rk, brokers) else {
            rd_kafka_destroy(rk)
            throw Failure(description: "rd_kafka_mock_cluster_new failed")
        }
        return MockCluster(rk: rk, cluster: cluster)
    }

    var bootstraps: String {
        guard let cluster else { return "" }
        return String(cString: rd_kafka_mock_cluster_bootstraps(cluster))
    }

    /// Caps the versions the mock offers for Metadata and FindCoordinator to the last ones that are not "flexible"
    /// (compact strings, tagged fields), which the long-poll front can read to give its own port (decision 0049).
    func capVersionsForTheFront() throws {
        guard let cluster else { throw Failure(description: "cluster destroyed") }
        for (key, maximum) in [(KafkaWire.metadata, Int16(8)), (KafkaWire.findCoordinator, Int16(2))] {
            let err = rd_kafka_mock_set_apiversion(cluster, key, 0, maximum)
            guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
                throw Failure(description: "cap API \(key) at v\(maximum): \(String(cString: rd_kafka_err2str(err)))")
            }
        }
    }

    func createTopic(_ topic: TopicSpec) throws {
        guard let cluster else { throw Failure(description: "cluster destroyed") }
        let err = rd_kafka_mock_topic_create(cluster, topic.name, topic.partitions, 1)
        guard err == RD_KAFKA_RESP_ERR_NO_ERROR else {
            throw Failure(description: "create topic \(topic.name): \(String(cString: rd_kafka_err2str(err)))")
        }
    }

    /// `rd_kafka_mock_broker_set_down/up` for every broker: down drops all connections and refuses new
    /// ones (clients see a broker that is not there); partitions, records and committed offsets are kept.
    func setAllBrokers(up: Bool) {
        guard let cluster else { return }
        let err = up ? rd_kafka_mock_broker_set_up(cluster, -1) : rd_kafka_mock_broker_set_down(cluster, -1)
        if err != RD_KAFKA_RESP_ERR_NO_ERROR {
            log("broker \(up ? "up" : "down") failed: \(String(cString: rd_kafka_err2str(err)))")
        }
    }

    func destroy() {
        guard let cluster else { return }
        self.cluster = nil
        rd_kafka_mock_cluster_destroy(cluster)
        rd_kafka_destroy(rk)
    }
}

private func decode(_ buffer: [CChar]) -> String {
    String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
