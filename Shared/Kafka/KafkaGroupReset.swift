import Logging

/// Moves a consumer group's committed offsets (replay from the beginning, an offset, a time) by briefly
/// *joining* the group: commits from outside a group are refused by librdkafka's mock cluster for any group that
/// ever had a member, while a member's commits work on the mock and on real Kafka alike.
///
/// Safety: the reset only proceeds if this member is assigned **every** partition of the topics, which means no
/// other member is alive (the `range` assignor, the services' own, would split the partitions with them). Otherwise
/// it leaves and throws `groupHasOtherMembers`. On a real broker the join makes live members rebalance once.
package enum KafkaGroupReset {
    package struct GroupHasOtherMembers: Error, CustomStringConvertible {
        package let assigned: Int
        package let partitions: Int
        package var description: String {
            "the group has other live members (this tool was assigned \(assigned) of \(partitions) partitions): stop its consumers first"
        }
    }

    /// Commits `offsets` (absolute) for `group`. `partitions` is the total partition count of `topics`.
    package static func commit(
        configuration: KafkaConfiguration, group: String, topics: [String], partitions: Int,
        offsets: [KafkaTopicPartitionOffset], joinTimeout: Duration = .seconds(30), logger: Logger
    ) async throws {
        // No automatic commits or stores: this member commits exactly the offsets it was given, and nothing when
        // it gives up (applied last, whatever the configuration's properties say).
        let settings =
            configuration.librdkafkaSettings(
                defaults: [("group.id", group), ("auto.offset.reset", "earliest")] + KafkaConsumer.defaultProperties)
            + [("enable.auto.commit", "false"), ("enable.auto.offset.store", "false")]
        let core = try KafkaConsumerCore.make(
            settings: settings, topics: topics, context: KafkaClientContext(logger: logger),
            label: "sns.kafka.group-reset")
        do {
            let clock = ContinuousClock()
            let deadline = clock.now.advanced(by: joinTimeout)
            var assigned = 0
            while clock.now < deadline {
                // Polling drives the join; records that arrive are not processed and not committed.
                if case .error(let error, true) = await core.poll() { throw error }
                assigned = await core.assignment().count
                if assigned >= partitions { break }
            }
            guard assigned >= partitions else { throw GroupHasOtherMembers(assigned: assigned, partitions: partitions) }
            for entry in offsets {
                guard case .absolute(let offset) = entry.offset else {
                    throw KafkaError(
                        code: KafkaError.invalidArgument, message: "group reset needs absolute offsets, got \(entry)")
                }
                if let error = await core.commit(topic: entry.topic, partition: entry.partition, offset: offset) {
                    throw error
                }
            }
            logger.info("group offsets reset", metadata: ["group": "\(group)", "partitions": "\(offsets.count)"])
            await core.close()
        } catch {
            await core.close()
            throw error
        }
    }
}
