import Foundation
import SNSTestSupport
import Testing

/// Both gateways log a request's target, never its headers or body; a query that carries credentials is logged as
/// `?[redacted]` (DevCommunity sends its access token, refresh token and `SesacKey` as query parameters of three
/// GETs). Checked by running nginx with each configuration's own map and log format, unbuffered, on a Unix socket.
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

        let lines = try Self.logLines(map: map, format: format, targets: Self.requests.map(\.target))
        #expect(lines.count == Self.requests.count, "\(lines)")
        for (line, request) in zip(lines, Self.requests) {
            #expect(line.contains("\"GET \(request.logged) HTTP/1.1\""), "\(line)")
            #expect(!line.contains("eyJ") && !line.contains("sns-secret"), "\(line)")
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

    /// Runs nginx in the foreground with `map` and `format` and an unbuffered access log on a Unix-domain socket,
    /// sends `targets` with curl, stops nginx (which closes its log) and returns the log's lines.
    static func logLines(map: String, format: String, targets: [String]) throws -> [String] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sns-access-log-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let root = directory.path
        let configuration = """
            worker_processes 1;
            pid \(root)/nginx.pid;
            error_log \(root)/error.log warn;
            events { worker_connections 64; }
            http {
                client_body_temp_path \(root); proxy_temp_path \(root); fastcgi_temp_path \(root);
                uwsgi_temp_path \(root); scgi_temp_path \(root);
                # Set by routes.conf in the gateways.
                map $request_id $sns_request_id { default $request_id; }
                \(map)
                log_format under_test \(format);
                access_log \(root)/access.log under_test;
                server { listen unix:\(root)/nginx.sock; location / { return 200 "ok"; } }
            }
            """
        try configuration.write(to: directory.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let nginx = try ChildProcess.spawn(
            "/usr/sbin/nginx", arguments: ["-c", "\(root)/nginx.conf", "-g", "daemon off;"],
            environment: ["PATH": "/usr/sbin:/usr/bin:/bin"])
        // curl waits for the socket to appear (a failed connection is retried, 1 s apart, at most 30 times).
        let curl = try ChildProcess.spawn(
            "/usr/bin/curl",
            arguments: [
                "-sS", "--max-time", "60", "--retry", "30", "--retry-delay", "1", "--retry-all-errors",
                "--unix-socket", "\(root)/nginx.sock",
            ] + targets.map { "http://localhost\($0)" },
            environment: ["PATH": "/usr/bin:/bin"])
        let sent = curl.waitUntilExit()
        nginx.signal(SIGQUIT)
        let stopped = nginx.waitUntilExit()
        try #require(sent == .exited(0), "curl")
        try #require(
            stopped == .exited(0), "nginx: \((try? String(contentsOfFile: "\(root)/error.log", encoding: .utf8)) ?? "")"
        )
        let log = try String(contentsOfFile: "\(root)/access.log", encoding: .utf8)
        return log.split(separator: "\n").map(String.init)
    }
}
