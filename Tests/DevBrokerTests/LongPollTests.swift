import NIOCore
import Testing

@testable import DevBroker

/// The dev broker's long-poll front (decision 0049): what it reads of Kafka frames, and when it holds a fetch.
@Suite("Dev broker long-poll front")
struct LongPollTests {
    /// Builds frames the way the Kafka protocol lays them out (big-endian, int16-length strings).
    struct Frame {
        var buffer = ByteBuffer()
        func int8(_ v: Int8) -> Frame { with { $0.writeInteger(v) } }
        func int16(_ v: Int16) -> Frame { with { $0.writeInteger(v) } }
        func int32(_ v: Int32) -> Frame { with { $0.writeInteger(v) } }
        func int64(_ v: Int64) -> Frame { with { $0.writeInteger(v) } }
        func string(_ s: String?) -> Frame {
            guard let s else { return int16(-1) }
            return int16(Int16(s.utf8.count)).with { $0.writeString(s) }
        }
        func bytes(_ count: Int) -> Frame { int32(Int32(count)).with { $0.writeRepeatingByte(7, count: count) } }
        func with(_ change: (inout ByteBuffer) -> Void) -> Frame {
            var copy = self
            change(&copy.buffer)
            return copy
        }
        static func request(_ key: Int16, version: Int16, correlation: Int32 = 7) -> Frame {
            Frame().int16(key).int16(version).int32(correlation).string("rdkafka")
        }
    }

    /// A fetch request (v11, librdkafka 2.0.2's) for `partitions` of one topic.
    static func fetch(
        _ partitions: [(Int32, Int64)], topic: String = "sns.posts", maxWait: Int32 = 500, minBytes: Int32 = 1
    ) -> ByteBuffer {
        var frame = Frame.request(KafkaWire.fetch, version: 11)
            .int32(-1).int32(maxWait).int32(minBytes).int32(52_428_800).int8(0).int32(0).int32(-1)
            .int32(1).string(topic).int32(Int32(partitions.count))
        for (partition, offset) in partitions {
            frame = frame.int32(partition).int32(-1).int64(offset).int64(-1).int32(1_048_576)
        }
        return frame.int32(0).string("").buffer  // no forgotten topics, rack ""
    }

    /// A fetch response (v11) for one topic whose partitions carry these record sizes (and error codes).
    static func fetchResponse(_ partitions: [(records: Int, error: Int16)], topLevelError: Int16 = 0) -> ByteBuffer {
        var frame = Frame().int32(7).int32(0).int16(topLevelError).int32(0).int32(1).string("sns.posts")
            .int32(Int32(partitions.count))
        for (index, partition) in partitions.enumerated() {
            frame = frame.int32(Int32(index)).int16(partition.error).int64(100).int64(100).int64(0)
                .int32(-1).int32(-1)
            frame = partition.records > 0 ? frame.bytes(partition.records) : frame.int32(Int32(partition.records))
        }
        return frame.buffer
    }

    @Test func aFetchRequestIsRead() throws {
        let frame = Self.fetch([(0, 42), (3, 9)])
        let header = try #require(KafkaWire.requestHeader(frame))
        #expect(header == KafkaWire.RequestHeader(apiKey: 1, apiVersion: 11, correlationId: 7, bodyOffset: 17))
        let request = try #require(KafkaWire.fetchRequest(frame, header: header))
        #expect(request.maxWaitMilliseconds == 500)
        #expect(request.minBytes == 1)
        #expect(frame.getInteger(at: request.maxWaitOffset, as: Int32.self) == 500)
        #expect(
            request.partitions == [
                KafkaWire.FetchedPartition(topic: "sns.posts", partition: 0, offset: 42),
                KafkaWire.FetchedPartition(topic: "sns.posts", partition: 3, offset: 9),
            ])
        // A version the front does not read, or a cut frame, is passed on as it is.
        var v12 = frame
        v12.setInteger(Int16(12), at: 2)
        #expect(KafkaWire.fetchRequest(v12, header: try #require(KafkaWire.requestHeader(v12))) == nil)
        #expect(KafkaWire.fetchRequest(frame.getSlice(at: 0, length: 40)!, header: header) == nil)
    }

    @Test func aProduceRequestsTopicsAreRead() throws {
        let frame = Frame.request(KafkaWire.produce, version: 7).string(nil).int16(-1).int32(30_000)
            .int32(2).string("sns.posts").int32(2).int32(0).bytes(60).int32(1).bytes(3)
            .string("sns.users").int32(1).int32(2).bytes(10).buffer
        let header = try #require(KafkaWire.requestHeader(frame))
        #expect(KafkaWire.producedTopics(frame, header: header) == ["sns.posts", "sns.users"])
        #expect(
            KafkaWire.producedTopics(frame.getSlice(at: 0, length: frame.readableBytes - 1)!, header: header) == nil)
    }

    @Test func aFetchResponseGivesSomethingWhenItHasRecordsOrAnError() {
        #expect(!KafkaWire.fetchResponseGivesAnything(Self.fetchResponse([(0, 0), (-1, 0)]), version: 11))
        #expect(KafkaWire.fetchResponseGivesAnything(Self.fetchResponse([(0, 0), (120, 0)]), version: 11))
        #expect(KafkaWire.fetchResponseGivesAnything(Self.fetchResponse([(0, 1)]), version: 11))  // offset out of range
        #expect(KafkaWire.fetchResponseGivesAnything(Self.fetchResponse([(0, 0)], topLevelError: 15), version: 11))
        let cut = Self.fetchResponse([(0, 0)])
        #expect(KafkaWire.fetchResponseGivesAnything(cut.getSlice(at: 0, length: cut.readableBytes - 2)!, version: 11))
    }

    @Test func metadataAndCoordinatorAnswersGetTheFrontsPort() throws {
        // Metadata v8: throttle, two brokers (id, host, port, rack), then the rest (left alone).
        var metadata = Frame().int32(7).int32(0)
            .int32(2).int32(1).string("127.0.0.1").int32(40_001).string(nil)
            .int32(2).string("127.0.0.1").int32(40_002).string("rack")
            .string("cluster").int32(1).int32(0).buffer
        #expect(KafkaWire.rewritePorts(&metadata, apiKey: KafkaWire.metadata, version: 8, port: 9092))
        #expect(
            metadata
                == Frame().int32(7).int32(0)
                .int32(2).int32(1).string("127.0.0.1").int32(9092).string(nil)
                .int32(2).string("127.0.0.1").int32(9092).string("rack")
                .string("cluster").int32(1).int32(0).buffer)
        // FindCoordinator v2: throttle, error, message, node, host, port.
        var coordinator = Frame().int32(7).int32(0).int16(0).string(nil).int32(1).string("127.0.0.1").int32(40_001)
            .buffer
        #expect(KafkaWire.rewritePorts(&coordinator, apiKey: KafkaWire.findCoordinator, version: 2, port: 9092))
        #expect(coordinator.getInteger(at: coordinator.readableBytes - 4, as: Int32.self) == 9092)
        // A flexible version is not read (the mock is capped below them).
        var flexible = metadata
        #expect(!KafkaWire.rewritePorts(&flexible, apiKey: KafkaWire.metadata, version: 9, port: 1))
        #expect(flexible == metadata)
    }

    @Test func aFetchWaitsOnlyWhenItWouldGetNothingAgain() throws {
        let header = try #require(KafkaWire.requestHeader(Self.fetch([(0, 42)])))
        func request(_ partitions: [(Int32, Int64)], topic: String = "sns.posts") throws -> KafkaWire.FetchRequest {
            try #require(KafkaWire.fetchRequest(Self.fetch(partitions, topic: topic), header: header))
        }
        var log = ProduceLog()
        var state = LongPollState()
        let first = try request([(0, 42), (1, 7)])
        #expect(!state.shouldHold(first, log: log), "a connection's first fetch goes on")
        state.sent(first, at: log.sequence)
        #expect(!state.shouldHold(first, log: log), "nor while the previous one is unanswered")
        state.answered(gaveAnything: true)
        #expect(!state.shouldHold(first, log: log), "nor after one that got something")
        state.sent(first, at: log.sequence)
        state.answered(gaveAnything: false)
        #expect(state.shouldHold(first, log: log), "the same fetch after nothing: it waits")
        #expect(!state.shouldHold(try request([(0, 42), (1, 8)]), log: log), "other offsets go on")
        #expect(!state.shouldHold(try request([(0, 42)]), log: log), "other partitions go on")
        log.record(["sns.users"])
        #expect(state.shouldHold(first, log: log), "a produce to another topic changes nothing")
        log.record(["sns.posts"])
        #expect(!state.shouldHold(first, log: log), "a produce to its topic since it was sent: it goes on")
        state.sent(first, at: log.sequence)
        state.answered(gaveAnything: false)
        #expect(state.shouldHold(first, log: log))
        log.record(nil)
        #expect(!state.shouldHold(first, log: log), "a produce whose topics were not read counts for every topic")
    }
}
