import Foundation
import NIOSSL
import PostgresNIO

/// Where the service's PostgreSQL is, parsed from a `postgres://user:password@host:port/database` URL.
/// `?sslmode=disable|prefer|require` is honoured (default `disable`, since the database sits on a private network).
///
/// As in libpq's URLs, a `host` query parameter that is a directory (it starts with `/`) means PostgreSQL's
/// Unix-domain socket in that directory, `<directory>/.s.PGSQL.<port>`: `postgres://sns:sns@/sns?host=/run/postgresql`
/// (the URL's own host may then be left out; the port still names the socket). A database on the same machine is
/// reached so without the loopback TCP stack: the local stack connects this way (decision 0037).
package struct DatabaseConfiguration: Sendable {
    package var host: String
    package var port: Int
    package var username: String
    package var password: String?
    package var database: String
    package var tlsMode: String
    package var maxConnections: Int
    /// The directory of PostgreSQL's Unix-domain socket, when the URL names one (`?host=/…`).
    package var socketDirectory: String?

    package init(url: String, variable: String = "SNS_DATABASE_URL", maxConnections: Int = 10) throws {
        guard let components = URLComponents(string: url),
            let scheme = components.scheme, scheme == "postgres" || scheme == "postgresql"
        else {
            throw ConfigurationError(
                variable: variable, reason: "must look like postgres://user:password@host:port/database")
        }
        let query = components.queryItems ?? []
        let hostParameter = query.first(where: { $0.name == "host" })?.value
        let socketDirectory = hostParameter.flatMap { $0.hasPrefix("/") ? $0 : nil }
        guard let host = hostParameter ?? components.host, !host.isEmpty else {
            throw ConfigurationError(variable: variable, reason: "has no host")
        }
        guard let user = components.user, !user.isEmpty else {
            throw ConfigurationError(variable: variable, reason: "has no user name")
        }
        let database = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        guard !database.isEmpty else {
            throw ConfigurationError(variable: variable, reason: "has no database name (the path part)")
        }
        let sslmode = query.first(where: { $0.name == "sslmode" })?.value ?? "disable"
        guard ["disable", "prefer", "require"].contains(sslmode) else {
            throw ConfigurationError(variable: variable, reason: "sslmode must be disable, prefer or require")
        }
        guard socketDirectory == nil || sslmode != "require" else {
            throw ConfigurationError(
                variable: variable, reason: "sslmode=require cannot be met over a Unix-domain socket (host=\(host))")
        }
        self.host = host
        self.port = components.port ?? 5432
        self.username = user.removingPercentEncoding ?? user
        self.password = components.password.map { $0.removingPercentEncoding ?? $0 }
        self.database = database
        self.tlsMode = sslmode
        self.maxConnections = maxConnections
        self.socketDirectory = socketDirectory
    }

    /// The socket file when connecting through a Unix-domain socket.
    package var socketPath: String? {
        socketDirectory.map { ($0.hasSuffix("/") ? $0 : $0 + "/") + ".s.PGSQL.\(port)" }
    }

    /// Where connections go, for messages: `host:port` or the socket's path.
    package var endpointDescription: String { socketPath ?? "\(host):\(port)" }

    package var clientConfiguration: PostgresClient.Configuration {
        var configuration: PostgresClient.Configuration
        if let socketPath {
            configuration = .init(
                unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            let tls: PostgresClient.Configuration.TLS =
                switch tlsMode {
                case "require": .require(.makeClientConfiguration())
                case "prefer": .prefer(.makeClientConfiguration())
                default: .disable
                }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        // No warm connection here: this pool serves migrations, the relay, the consumers and readiness (posts'
        // requests have pools of their own, `LoopLocalPools`), and in the tests' process each of hundreds of
        // in-process services, where warm connections turn a test that ends all backends into hundreds of
        // simultaneous reconnections (and SCRAM handshakes): one full run stalled so (decision 0029).
        configuration.options.size(maximum: maxConnections, warm: 0)
        return configuration
    }

    /// For a connection of its own, outside the pool (a long-lived `LISTEN`).
    package func connectionConfiguration() throws -> PostgresConnection.Configuration {
        var configuration: PostgresConnection.Configuration
        if let socketPath {
            configuration = .init(
                unixSocketPath: socketPath, username: username, password: password, database: database)
        } else {
            // A TLS context only for TCP (building one for a socket would be wasted, and could fail for nothing).
            let tls: PostgresConnection.Configuration.TLS =
                switch tlsMode {
                case "require": .require(try NIOSSLContext(configuration: .makeClientConfiguration()))
                case "prefer": .prefer(try NIOSSLContext(configuration: .makeClientConfiguration()))
                default: .disable
                }
            configuration = .init(
                host: host, port: port, username: username, password: password, database: database, tls: tls)
        }
        configuration.options.connectTimeout = .seconds(5)
        return configuration
    }
}

extension PostgresClient.Configuration.Options {
    /// A pool of at most `maximum` connections that keeps `warm` of them open for good (fewer than `maximum`, as
    /// PostgresNIO requires) and sends no keep-alive queries, so that leasing and returning a connection starts no
    /// timer (decision 0029).
    ///
    /// PostgresNIO's pool starts timers each time a connection goes back to it: a keep-alive timer on every idle
    /// connection, and an idle-timeout timer on every connection beyond `minimumConnections`; leasing the connection
    /// again cancels them. Each timer is a task group with two child tasks and a `ContinuousClock` sleep, which Swift
    /// hands to Dispatch's timer thread whatever the global executor is: in profiles of the mixed workload, a sixth
    /// of posts' CPU went to starting and cancelling timers that never fired. Without keep-alive queries, a
    /// connection PostgreSQL closes is still noticed by its socket and replaced. The pool leases the
    /// lowest-numbered free connection, so the warm ones carry the usual load without timers; those a burst opens
    /// beyond them still close after `connectionIdleTimeout`.
    package mutating func size(maximum: Int, warm: Int) {
        maximumConnections = maximum
        minimumConnections = max(0, min(warm, maximum - 1))
        keepAliveBehavior = nil
    }
}
