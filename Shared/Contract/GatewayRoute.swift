/// One public path the gateway sends to a service: an nginx `location`, written from the catalog into
/// `deploy/nginx/routes.conf` by `sns-admin catalog --sync-deployment` (docs/operations.md, "Adding a service").
/// Paths are fixed text of the catalog, never input.
package struct GatewayRoute: Sendable, Equatable {
    package enum Match: String, Sendable {
        /// `location = /path`: this path only.
        case exact = "="
        /// `location ^~ /path/`: everything under it, chosen before any regular expression.
        case prefix = "^~"
        /// `location ~ regex`: a regular expression (nginx tries them in file order).
        case pattern = "~"
    }

    package let match: Match
    package let path: String
    /// nginx's `client_max_body_size` for this location (the server-wide bound is 30m).
    package let bodyLimit: String?
    /// Request bodies stream to the service as they arrive (uploads), not buffered by nginx first.
    package let streamed: Bool
    /// A Socket.IO endpoint: WebSocket upgrades pass through, long polls may wait, and every request of a client
    /// goes to the same replica (the upstream `<service>_sockets`, hashed by client address), because an
    /// Engine.IO session lives in the replica that opened it.
    package let socket: Bool

    package init(
        _ match: Match, _ path: String, bodyLimit: String? = nil, streamed: Bool = false, socket: Bool = false
    ) {
        self.match = match
        self.path = path
        self.bodyLimit = bodyLimit
        self.streamed = streamed
        self.socket = socket
    }

    /// The upstream of a service's Socket.IO routes.
    package static func socketUpstream(of service: String) -> String { service + "_sockets" }

    package static func socket(_ path: String) -> GatewayRoute { GatewayRoute(.prefix, path, socket: true) }

    package static func exact(_ path: String, bodyLimit: String? = nil, streamed: Bool = false) -> GatewayRoute {
        GatewayRoute(.exact, path, bodyLimit: bodyLimit, streamed: streamed)
    }

    package static func prefix(_ path: String) -> GatewayRoute { GatewayRoute(.prefix, path) }
    package static func pattern(_ regex: String, bodyLimit: String? = nil) -> GatewayRoute {
        GatewayRoute(.pattern, regex, bodyLimit: bodyLimit)
    }

    /// The route as one nginx line sending to `upstream` (columns aligned like the hand-written part of the file).
    package func nginxLocation(upstream: String) -> String {
        let head = "location \(match.rawValue) \(path)"
        let padded = head.count < 32 ? head + String(repeating: " ", count: 32 - head.count) : head
        var directives: [String] = []
        if let bodyLimit { directives.append("client_max_body_size \(bodyLimit);") }
        if streamed { directives.append("proxy_request_buffering off;") }
        if socket {
            // A location that sets any header inherits none of the server's: all of them again, plus the upgrade.
            directives += [
                "proxy_read_timeout 90s;", "proxy_buffering off;",
                "proxy_set_header Upgrade $http_upgrade;", "proxy_set_header Connection $http_connection;",
                "proxy_set_header Host $host;", "proxy_set_header X-Request-ID $sns_request_id;",
                "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
                "proxy_set_header X-Forwarded-Proto $scheme;",
            ]
            directives.append("proxy_pass http://\(Self.socketUpstream(of: upstream));")
        } else {
            directives.append("proxy_pass http://\(upstream);")
        }
        return "\(padded) { \(directives.joined(separator: " ")) }"
    }
}
