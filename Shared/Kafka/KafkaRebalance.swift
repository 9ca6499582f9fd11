internal import CRDKafka
import Synchronization

/// A group member's rebalance callback. It assigns and revokes exactly as librdkafka does when a consumer has none
/// (`rd_kafka_assign` for the eager protocol our consumers use, the incremental calls should a configuration choose
/// a cooperative assignor), and it records in the client's context whether the member holds the group's current
/// assignment: true from an assignment (possibly empty: more members than partitions) until the next revocation.
///
/// Why: a member that leaves while its group is rebalancing (a replica stopped just after another one joined) does
/// not finish its close in time on the dev broker, and the group then waits a session timeout before it moves that
/// member's partitions. `/ready` reports whether every consumer of a replica holds its assignment, so a rolling
/// restart can wait for the group to settle before it stops the next replica (decision 0018).
///
/// librdkafka calls it while it serves the consumer queue, i.e. inside `rd_kafka_consumer_poll` or
/// `rd_kafka_consumer_close`, on whichever thread called those.
enum KafkaRebalance {
    static func install(on conf: OpaquePointer) {
        rd_kafka_conf_set_rebalance_cb(conf) { rk, err, partitions, _ in
            guard let rk else { return }
            let context = KafkaClientContext.from(rk)
            let cooperative = rd_kafka_rebalance_protocol(rk).map { String(cString: $0) } == "COOPERATIVE"
            let assigning = err == RD_KAFKA_RESP_ERR__ASSIGN_PARTITIONS
            if !assigning { context?.holdsAssignment.store(false, ordering: .releasing) }
            let failure: String?
            if cooperative {
                let error =
                    assigning
                    ? rd_kafka_incremental_assign(rk, partitions) : rd_kafka_incremental_unassign(rk, partitions)
                failure = error.map { error in
                    defer { rd_kafka_error_destroy(error) }
                    return String(cString: rd_kafka_error_string(error))
                }
            } else {
                let code = rd_kafka_assign(rk, assigning ? partitions : nil)
                failure = code == RD_KAFKA_RESP_ERR_NO_ERROR ? nil : String(cString: rd_kafka_err2str(code))
            }
            if let failure {
                context?.logger.warning("Kafka consumer: \(assigning ? "assign" : "revoke") failed: \(failure)")
            } else if assigning {
                context?.holdsAssignment.store(true, ordering: .releasing)
            }
        }
    }
}
