import ArgumentParser
import Foundation
import PostgresNIO

/// `postgres://user:password@host:port/database`, the form `SNS_DATABASE_URL` takes (no TLS: loopback only).
struct PostgresURL {
    let clientConfiguration: PostgresClient.Configuration

    init(_ text: String) throws {
        guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""),
            let host = url.host, let user = url.user, !url.path.dropFirst().isEmpty
        else { throw ValidationError("--database-url must look like postgres://user:password@host:port/database") }
        clientConfiguration = PostgresClient.Configuration(
            host: host, port: url.port ?? 5432, username: user, password: url.password,
            database: String(url.path.dropFirst()), tls: .disable
        )
    }
}
