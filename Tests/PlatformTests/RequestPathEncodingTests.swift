import Foundation
import Logging
import Synchronization
import Testing

@testable import SNSPlatform

/// The hand-written encodings on every page's path give exactly the bytes of the Foundation ones they replaced.
@Suite("Request path encodings")
struct RequestPathEncodingTests {
    /// What `base64URLEncoded` was: Foundation's base64 with the two characters swapped and the padding dropped.
    static func reference(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    @Test func base64URLOfEveryLengthAndByteMatchesFoundation() {
        var generator = SystemRandomNumberGenerator()
        for length in 0..<70 {
            for _ in 0..<20 {
                let data = Data((0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) })
                let encoded = data.base64URLEncoded()
                #expect(encoded == Self.reference(data))
                #expect(Data(base64URLEncoded: encoded) == data)
            }
        }
        let everyByte = Data(0...255)
        #expect(everyByte.base64URLEncoded() == Self.reference(everyByte))
    }

    @Test func base64URLDecodingAcceptsWhatItDidBefore() {
        #expect(Data(base64URLEncoded: "YzE6MTI") == Data("c1:12".utf8))
        #expect(Data(base64URLEncoded: "YzE6MTI=") == Data("c1:12".utf8), "padded")
        #expect(Data(base64URLEncoded: "-_-_") == Data([0xFB, 0xFF, 0xBF]))
        #expect(Data(base64URLEncoded: "+/+/") == Data([0xFB, 0xFF, 0xBF]), "plain base64's characters too")
        #expect(Data(base64URLEncoded: "a") == nil)
        #expect(Data(base64URLEncoded: "ab c") == nil)
        #expect(Data(base64URLEncoded: "커서") == nil)
    }

    @Test func jsonStringMatchesJSONEncoder() throws {
        let samples = [
            "", "YzE6MTI", "plain text", "quote \" here", "back\\slash", "a/b", "tab\there", "line\nbreak",
            "\u{7F}", "\u{1F}", "한글 커서", "emoji 🙂", "<html>&amp;", String(repeating: "x", count: 300),
        ]
        for sample in samples {
            let expected = String(decoding: try JSONEncoder().encode(sample), as: UTF8.self)
            #expect(APIError.jsonString(sample) == expected, "\(sample)")
        }
        for byte in UInt8(0)..<0x80 {
            let sample = "a" + String(UnicodeScalar(byte)) + "b"
            let expected = String(decoding: try JSONEncoder().encode(sample), as: UTF8.self)
            #expect(APIError.jsonString(sample) == expected, "byte \(byte)")
        }
    }

    final class Sink: Sendable {
        let events = Mutex<[LogEvent]>([])
    }

    @Test func deferredMetadataGoesWithEachLoggedEventAndTheEventsOwnKeysWin() {
        let sink = Sink()
        var logger = Logger(label: "probe") { _ in DeferredMetadataLog(inner: SinkRecorder(sink: sink)) }
        logger[metadataKey: "request_id"] = "r1"
        logger[metadataKey: "user_id"] = "u1"
        #expect(logger[metadataKey: "request_id"] == "r1")
        logger.debug("below the level: not logged")
        logger.info("plain")
        logger.warning("own keys", metadata: ["user_id": "u2", "extra": "e"])
        let events = sink.events.withLock { $0 }
        #expect(events.count == 2)
        #expect(events.first?.metadata == ["request_id": "r1", "user_id": "u1"])
        #expect(events.last?.metadata == ["request_id": "r1", "user_id": "u2", "extra": "e"])
        var copy = logger
        copy[metadataKey: "request_id"] = nil
        copy.info("after removing a key")
        #expect(sink.events.withLock { $0.last?.metadata } == ["user_id": "u1"])
    }

    /// `StreamLogHandler`'s order: the handler's metadata, then the provider's, then the event's.
    @Test func aMetadataProviderSitsBetweenTheLoggersKeysAndTheEventsOwn() {
        let sink = Sink()
        var recorder = SinkRecorder(sink: sink)
        recorder.metadataProvider = Logger.MetadataProvider { ["trace": "from-provider", "user_id": "from-provider"] }
        var logger = Logger(label: "probe") { _ in DeferredMetadataLog(inner: recorder) }
        logger[metadataKey: "user_id"] = "u1"
        logger[metadataKey: "request_id"] = "r1"
        logger.info("with a provider", metadata: ["trace": "own"])
        #expect(
            sink.events.withLock { $0.last?.metadata } == [
                "request_id": "r1", "user_id": "from-provider", "trace": "own",
            ])
    }

    /// Collects what reaches the inner handler.
    struct SinkRecorder: LogHandler {
        let sink: Sink
        var metadata: Logger.Metadata = [:]
        var metadataProvider: Logger.MetadataProvider?
        var logLevel: Logger.Level = .info
        func log(event: LogEvent) { sink.events.withLock { $0.append(event) } }
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
    }
}
