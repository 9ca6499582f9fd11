import Dispatch

/// Runs CPU-heavy synchronous work (bcrypt) on a global dispatch queue so it never occupies a thread of the
/// Swift cooperative pool, which would stall unrelated requests.
package func runBlocking<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        DispatchQueue.global(qos: .userInitiated).async {
            continuation.resume(with: Result { try work() })
        }
    }
}
