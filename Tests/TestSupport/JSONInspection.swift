import Foundation

/// Reads a JSON response body loosely, so tests can assert exact key sets and types the way clients decode them.
package struct JSONObject: @unchecked Sendable {
    // Safety: holds only values produced by JSONSerialization (immutable Foundation containers and scalars).
    package let dictionary: [String: Any]

    package init(_ bytes: some Sequence<UInt8>) throws {
        let data = Data(bytes)
        guard let dictionary = try JSONSerialization.jsonObject(with: data) as? [String: Any] else {
            throw DecodingError.typeMismatch(
                [String: Any].self,
                .init(codingPath: [], debugDescription: "not a JSON object: \(String(decoding: data, as: UTF8.self))"))
        }
        self.dictionary = dictionary
    }

    package var keys: Set<String> { Set(dictionary.keys) }
    package subscript(_ key: String) -> Any? { dictionary[key] }
    package func string(_ key: String) -> String? { dictionary[key] as? String }
    package func bool(_ key: String) -> Bool? { dictionary[key] as? Bool }
}
