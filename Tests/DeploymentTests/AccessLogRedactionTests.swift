import Foundation
import SNSTestSupport
import Testing

/// Both gateways log a request's target, never its headers or body; a query that carries credentials is logged as
/// `?[redacted]` (DevCommunity sends its access token, refresh token and `SesacKey` as query parameters of three
/// GETs); their error logs, which nginx writes whole request lines into, keep only `crit` and above. Checked by
/// running nginx with each configuration's own map, log format and error log level, on a Unix socket.
@Suite("Gateway access logs")
struct AccessLogRedactionTests {
    static let configurations = ["deploy/nginx/nginx.local.conf.template", "deploy/nginx/compose/nginx.conf"]

    @Test(arguments: configurations)
    func credentialsInQueriesAreRedacted(path: String) throws {
        let text = try Repository.text(path)
        let map = try #require(
            Pattern.captures(#"(?s)(map \$request_uri \$sns_logged_uri \{.*?\n    \})"#, in: text).first,
            "\(path) defines the redaction map")
        let formats = Pattern.matches(#"(?s)log_format (\w+) (.*?);\n"#, in: text)
        let used = try #require(Pattern.captures(#"access_log \S+ (\w+)"#, in: text).first)
        let format = try #require(formats.first { $0.first == used }?.last ?? nil, "\(path): log_format \(used)")
        for leak in ["$request ", "$request\"", "$request_uri", "$args", "$query_string", "$http_authorization"] {
            #expect(!format.contains(leak), "\(path)'s access log format contains \(leak)")
        }

        let errorLevel = try #require(
            Pattern.captures(#"(?m)^error_log \S+ (\w+);"#, in: text).first, "\(path) sets its error log's level")
        let logs = try Self.logs(
            map: map, format: format, errorLevel: errorLevel, targets: Self.requests.map(\.target))
        #expect(logs.access.count == Self.requests.count, "\(logs.access)")
        for (line, request) in zip(logs.access, Self.requests) {
            #expect(line.contains("\"GET \(request.logged) HTTP/1.1\""), "\(line)")
            #expect(!line.contains("eyJ") && !line.contains("sns-secret"), "\(line)")
        }
        // Every request went to an upstream that refuses connections (TCP port 1): nginx writes each such failure,
        // with its whole request line, into its error log at level `error` (as the second run shows). The
        // configuration's level keeps them out; the access log says which upstream failed.
        #expect(!logs.error.contains("eyJ") && !logs.error.contains("sns-secret"), "\(path)'s error log: \(logs.error)")
        let atLevelError = try Self.logs(
            map: map, format: format, errorLevel: "error", targets: Self.requests.map(\.target))
        #expect(
            atLevelError.error.contains("sns-secret"), "the probe's failures reach the error log: \(atLevelError.error)"
        )
        for line in logs.access {
            #expect(line.contains(" 502 ") && line.contains("upstream=127.0.0.1:1 upstream_status=502"), "\(line)")
        }
    }

    /// Each request target and how the access log must show it.
    static let requests: [(target: String, logged: String)] = [
        ("/v1/posts?next=&limit=10&product_id=DevCommunity", "/v1/posts?next=&limit=10&product_id=DevCommunity"),
        ("/v1/users/me/profile?Authorization=eyJhbGciOi&SesacKey=sns-secret", "/v1/users/me/profile?[redacted]"),
        ("/v1/auth/refresh?next=&refresh=eyJhbGciOi", "/v1/auth/refresh?[redacted]"),
        ("/v1/users/withdraw?sesackey=sns-secret", "/v1/users/withdraw?[redacted]"),
        ("/v1/posts/hashtags?hashTag=%EB%8F%85%EC%84%9C", "/v1/posts/hashtags?hashTag=%EB%8F%85%EC%84%9C"),
    ]

    /// Runs nginx in the foreground with `map` and `format`, an unbuffered access log and an error log at
    /// `errorLevel`, on a Unix-domain socket, proxying every request to a port nobody listens on; sends `targets`
    /// with curl, stops nginx (which closes its logs) and returns the access log's lines and the error log's text.
    static func logs(
        map: String, format: String, errorLevel: String, targets: [String]
    ) throws -> (access: [String], error: String) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sns-access-log-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.path
        let configuration = """
            worker_processes 1;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log \(errorLevel);
            events { worker_connections 64; }
            http {
                client_body_temp_path \(root); proxy_temp_path \(root); fastcgi_temp_path \(root);
                uwsgi_temp_path \(root); scgi_temp_path \(root);
                # Set by routes.conf in the gateways.
                map $request_id $sns_request_id { default $request_id; }
                \(map)
                log_format under_test \(format);
                access_log \(root)/access.log under_test;
                server {
                    listen unix:\(root)/nginx.sock;
                    location = /started { access_log off; return 204; }
                    location / { proxy_pass http://127.0.0.1:1; }
                }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try ChildProcess.spawn(
            "/usr/sbin/nginx", arguments: ["-c", "\(root)/nginx.conf", "-g", "daemon off;"],
            environment: ["PATH": "/usr/sbin:/usr/bin:/bin"])
        // The first curl waits for the socket to appear (a failed connection is retried, 1 s apart, at most 30
        // times); the second sends the targets once each (their 502s are not retried).
        let started = try ChildProcess.spawn(
            "/usr/bin/curl",
            arguments: [
                "-sSf", "--max-time", "60", "--retry", "30", "--retry-delay", "1", "--retry-all-errors",
                "--unix-socket", "\(root)/nginx.sock", "http://localhost/started",
            ],
            environment: ["PATH": "/usr/bin:/bin"]
        ).waitUntilExit()
        let sent =
            started == .exited(0)
            ? try ChildProcess.spawn(
                "/usr/bin/curl",
                arguments: ["-sS", "--max-time", "60", "--unix-socket", "\(root)/nginx.sock"]
                    + targets.map { "http://localhost\($0)" },
                environment: ["PATH": "/usr/bin:/bin"]
            ).waitUntilExit() : started
        nginx.signal(SIGQUIT)
        let stopped = nginx.waitUntilExit()
        let errorLog = (try? String(contentsOfFile: "\(root)/error.log", encoding: .utf8)) ?? ""
        try #require(sent == .exited(0), "curl")
        try #require(stopped == .exited(0), "nginx: \(errorLog)")
        let log = try String(contentsOfFile: "\(root)/access.log", encoding: .utf8)
        return (log.split(separator: "\n").map(String.init), errorLog)
    }
}
