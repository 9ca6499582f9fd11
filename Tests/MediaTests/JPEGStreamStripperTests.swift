import Foundation
import MediaService
import SNSTestSupport
import Testing

/// A JPEG's metadata is stripped as the upload streams in (decision 0046). Whatever the chunks, the stripper must
/// give what the whole-file stripper it replaced gave: the same bytes, or the same refusal with the same reason.
@Suite("JPEG metadata stripped as the file streams in")
struct JPEGStreamStripperTests {
    typealias Outcome = Result<[UInt8], JPEGMetadataStripper.Malformed>

    static func streamed(_ bytes: [UInt8], chunks sizes: [Int]) -> Outcome {
        var stripper = JPEGMetadataStripper()
        var output: [UInt8] = []
        var offset = 0
        var next = 0
        do {
            while offset < bytes.count {
                let size = max(1, sizes[next % sizes.count])
                next += 1
                let end = min(bytes.count, offset + size)
                try stripper.feed(bytes[offset..<end], into: &output)
                offset = end
            }
            try stripper.finish()
            return .success(output)
        } catch let error as JPEGMetadataStripper.Malformed {
            return .failure(error)
        } catch {
            Issue.record("unexpected \(error)")
            return .success([])
        }
    }

    static func reference(_ bytes: [UInt8]) -> Outcome {
        Result { try ReferenceJPEGStripper.strip(bytes) }.mapError { $0 as! JPEGMetadataStripper.Malformed }
    }

    /// The real photos of the fixtures and the broken shapes of `ImageTypeTests`, in one piece, byte by byte, and in
    /// uneven chunks.
    @Test func agreesWithTheWholeFileStripperOnTheFixtures() {
        let jpeg = ImageFixtures.jpeg
        let inputs: [[UInt8]] = [
            jpeg, ImageFixtures.jpegWithMetadata, ImageFixtures.largeJPEG(size: 70_000), jpeg + Array("trailer".utf8),
            Array(jpeg.dropFirst(2)), Array(jpeg.dropLast(2)), Array(jpeg.prefix(30)),
            Array(jpeg.prefix(20)) + [0xFF, 0xE1, 0xFF, 0xFF, 0x00],
            Array(jpeg.prefix(20)) + [0x12, 0x34] + Array(jpeg.dropFirst(20)),
            Array(jpeg.prefix(20)) + [0xFF, 0xE1, 0x00, 0x00] + Array(jpeg.dropFirst(20)), [0xFF, 0xD8, 0xFF, 0xD9],
            [], [0xFF], [0xFF, 0xD8], [0xFF, 0xD8, 0xFF],
        ]
        for input in inputs {
            let expected = Self.reference(input)
            for chunks in [[input.count], [1], [2, 7, 1, 64], [4096]] {
                #expect(Self.streamed(input, chunks: chunks) == expected, "\(input.count) bytes in chunks \(chunks)")
            }
        }
        #expect(Self.reference(ImageFixtures.jpegWithMetadata) == .success(ImageFixtures.jpegWithMetadataStripped))
    }

    /// 3 000 mutations of the fixtures — truncated, bytes changed (often into marker bytes), markers inserted, runs
    /// deleted — each fed in random chunks: the same outcome as the whole-file stripper, reason included.
    @Test func agreesWithTheWholeFileStripperOnMutatedFiles() {
        var random = SeededGenerator(seed: 0x0046_1bee)
        let sources = [ImageFixtures.jpeg, ImageFixtures.jpegWithMetadata]
        let interesting: [UInt8] = [0xFF, 0x00, 0xD8, 0xD9, 0xDA, 0xD0, 0xE1, 0xC0, 0xFE, 0x01, 0x02]
        var failures = 0
        for round in 0..<3_000 {
            var bytes = sources[round % sources.count]
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<4, using: &random) {
                case 0: bytes = Array(bytes.prefix(at))
                case 1: bytes[at] = interesting.randomElement(using: &random)!
                case 2: bytes.insert(contentsOf: [0xFF, interesting.randomElement(using: &random)!], at: at)
                default: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...8, using: &random)))
                }
            }
            let chunks = (0..<4).map { _ in Int.random(in: 1...40, using: &random) }
            let expected = Self.reference(bytes)
            if case .failure = expected { failures += 1 }
            #expect(Self.streamed(bytes, chunks: chunks) == expected, "round \(round), chunks \(chunks)")
        }
        #expect(failures > 300 && failures < 2_900, "both outcomes are exercised: \(failures) refusals")
    }
}
