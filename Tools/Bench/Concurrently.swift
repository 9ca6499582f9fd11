import Foundation

/// Runs `body` over `items` with at most `width` calls in flight; the results in the items' order.
func mapConcurrently<T: Sendable, R: Sendable>(
    _ items: [T], width: Int, progress: String? = nil, _ body: @Sendable @escaping (T) async throws -> R
) async throws -> [R] {
    var results = [R?](repeating: nil, count: items.count)
    try await withThrowingTaskGroup(of: (Int, R).self) { group in
        var next = 0, done = 0
        func startNext() {
            guard next < items.count else { return }
            let index = next, item = items[index]
            next += 1
            group.addTask { (index, try await body(item)) }
        }
        for _ in 0..<width { startNext() }
        while let (index, result) = try await group.next() {
            results[index] = result
            done += 1
            if let progress, done % max(1, items.count / 10) == 0 { log("\(progress): \(done)/\(items.count)") }
            startNext()
        }
    }
    return results.map { $0! }
}

/// Progress goes to standard error, numbers to standard output.
func log(_ message: String) {
    FileHandle.standardError.write(Data("[sns-bench] \(message)\n".utf8))
}
