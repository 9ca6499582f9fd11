import PostgresNIO
import _ConnectionPoolModule

/// Tells failures of the infrastructure (database unreachable, connection lost, deadlock or serialization
/// conflict) from failures of the work itself (a handler rejecting an event, a constraint violation).
/// Consumers wait out the first kind indefinitely and count only the second kind toward dead-lettering.
package enum InfrastructureFailure {
    package static func isTransient(_ error: any Error) -> Bool {
        if error is TransactionTimeout { return true }
        if let error = error as? PSQLError {
            if error.code == .server {
                // 40001 serialization_failure, 40P01 deadlock_detected, 57P01 admin_shutdown,
                // 57P03 cannot_connect_now, 53300 too_many_connections
                let state = error.serverInfo?[.sqlState] ?? ""
                return ["40001", "40P01", "57P01", "57P02", "57P03", "53300"].contains(state)
            }
            return true  // connection-level failures: closed, timed out, unreachable
        }
        if let error = error as? PostgresTransactionError {
            return error.beginError != nil || error.commitError != nil || error.rollbackError != nil
        }
        return error is ConnectionPoolError  // e.g. no connection could be created in time
    }
}
