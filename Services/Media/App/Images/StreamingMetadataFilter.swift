/// A photo format's metadata stripper that works on the file as it streams in (decisions 0046, 0047): fed the bytes
/// in any chunks, it appends what is kept to an output and holds no more than a header between calls; at the end it
/// throws if the file was cut short or malformed, or returns overwrites of bytes already output that what it dropped
/// calls for (a WebP's header).
package protocol StreamingMetadataFilter {
    init()
    /// Takes the next bytes of the file and appends what is kept of them to `output`.
    mutating func feed(_ bytes: some Collection<UInt8>, into output: inout [UInt8]) throws
    /// The file has ended: the patches to apply to the output, or the reason it is refused.
    func finish() throws -> [MetadataPatch]
}

/// An overwrite of bytes already output: `bytes` at `offset`.
package struct MetadataPatch: Equatable, Sendable {
    package let offset: Int
    package let bytes: [UInt8]

    package init(offset: Int, bytes: [UInt8]) {
        self.offset = offset
        self.bytes = bytes
    }
}

extension StreamingMetadataFilter {
    /// Strips a whole file in memory, patches applied.
    package static func strip(_ data: [UInt8]) throws -> [UInt8] {
        var filter = Self()
        var output: [UInt8] = []
        output.reserveCapacity(data.count)
        try filter.feed(data, into: &output)
        for patch in try filter.finish() {
            output.replaceSubrange(patch.offset..<patch.offset + patch.bytes.count, with: patch.bytes)
        }
        return output
    }
}
