import Logging
import PostgresNIO

extension PostgresClient {
    /// `withTransaction`, but the closure's own error comes out unwrapped (PostgresNIO wraps it in
    /// `PostgresTransactionError`), so handlers can throw `APIError`s and typed errors through a transaction.
    /// If the rollback itself failed, the full `PostgresTransactionError` is thrown.
    public func transaction<Result>(
        logger: Logger,
        file: String = #file, line: Int = #line,
        isolation: isolated (any Actor)? = #isolation,
        _ closure: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            return try await withTransaction(logger: logger, file: file, line: line, isolation: isolation, closure)
        } catch let error as PostgresTransactionError {
            if let closureError = error.closureError, error.rollbackError == nil { throw closureError }
            throw error
        }
    }
}
