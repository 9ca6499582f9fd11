import SNSTestSupport
import Testing

@testable import SNSKafka

/// A group member knows whether it holds its group's current assignment (`KafkaRebalance`), which `/ready` reports
/// so that a rolling restart stops the next replica only once the group has settled.
@Suite("Consumer group assignment")
struct RebalanceTests {
    @Test("A member holds its assignment once it joined; two members both hold theirs once the group settled")
    func membersHoldTheirAssignments() async throws {
        let topic = KafkaTestBroker.uniqueTopic("rebalance")
        let group = KafkaTestBroker.uniqueGroup("rebalance")
        let producer = try KafkaTestBroker.producer()
        // The mock creates the topic (four partitions) on its first record.
        _ = try await withHangGuard("sending") {
            try await producer.send(KafkaOutgoingMessage(topic: topic, key: "k".bytes, value: "v".bytes))
        }
        let first = try KafkaTestBroker.consumer(group: group, topic: topic)
        #expect(!first.holdsAssignment, "a consumer joins on its first poll, not when it is made")
        let firstReading = Task { for try await _ in first.messages {} }
        try await withHangGuard("the first member's assignment", seconds: 60) {
            while !first.holdsAssignment { try await Task.sleep(for: .milliseconds(20)) }
        }
        #expect(await first.assignment().count == 4)

        let second = try KafkaTestBroker.consumer(group: group, topic: topic)
        let secondReading = Task { for try await _ in second.messages {} }
        // The second member's join makes the first give its partitions back and take half of them again.
        try await withHangGuard("both members' assignments", seconds: 60) {
            while true {
                let secondHas = await second.assignment().count
                if second.holdsAssignment && first.holdsAssignment && secondHas == 2 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        #expect(await first.assignment().count == 2)

        // The second leaves: the first gives its half back and takes all four.
        await second.shutdown()
        _ = await secondReading.result
        try await withHangGuard("the first member's whole assignment again", seconds: 60) {
            while true {
                let firstHas = await first.assignment().count
                if first.holdsAssignment && firstHas == 4 { break }
                try await Task.sleep(for: .milliseconds(20))
            }
        }
        await first.shutdown()
        _ = await firstReading.result
        await producer.shutdown()
    }
}
