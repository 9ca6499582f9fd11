import Foundation

/// Reads a JSON response body loosely, so tests can assert exact key sets and types the way clients decode them.
public struct JSONObject: @unchecked Sendable {
    // Safety: holds only values produced by JSONSerialization (immutable Foundation containers and scalars).
    public let dictionary: [String: Any]

    public init(_ bytes: some Sequence<UInt8>) throws {
        let data = Data(bytes)
        guard let dictionary = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: [], debugDescription: "not a JSON object: \(String(decoding: data, as: UTF8.self))"))
        }
        self.dictionary = dictionary
    }

    public var keys: Set<String> { Set(dictionary.keys) }
    public subscript(_ key: String) -> Any? { dictionary[key] }
    public func string(_ key: String) -> String? { dictionary[key] as? String }
    public func bool(_ key: String) -> Bool? { dictionary[key] as? Bool }
}
