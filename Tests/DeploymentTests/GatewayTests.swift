import Foundation
import SNSTestSupport
import Testing

/// The compose gateway: the shared routes (deploy/nginx/routes.conf) rewritten to re-resolved upstreams.
@Suite("Compose gateway (nginx)")
struct GatewayTests {
    let compose: ComposeFile
    let nginx: String
    let routes: String

    init() throws {
        compose = try ComposeFile.load()
        // Alignment spaces do not matter.
        nginx = Pattern.replacing("[ \\t]+", in: try Repository.text("deploy/nginx/compose/nginx.conf"), with: " ")
        routes = try Repository.text("deploy/nginx/routes.conf")
    }

    @Test func everyRouteTargetIsAComposeServiceWithAnUpstreamVariable() throws {
        let all = Set(Pattern.captures(#"proxy_pass http://([a-z][a-z0-9_]*);"#, in: routes))
        // Socket.IO routes go to `<service>_sockets`, an upstream that keeps each client on one replica.
        let sockets = all.filter { $0.hasSuffix("_sockets") }
        let targets = all.subtracting(sockets)
        #expect(targets == Set(ProgramCatalog.services), "routes.conf routes to \(targets.sorted())")
        for upstream in sockets {
            let service = String(upstream.dropLast("_sockets".count))
            #expect(compose[service] != nil, "\(upstream) is not a compose service's")
            #expect(nginx.contains("set $sns_upstream_\(upstream) \(upstream);"))
            #expect(
                nginx.contains(
                    "upstream \(upstream) { zone \(upstream) 64k; hash $remote_addr consistent; server \(service):8080 resolve; }"
                ),
                "nginx.conf has no re-resolved upstream \(upstream)")
        }
        for target in targets {
            let service = try #require(compose[target], "routes.conf routes to \(target), which compose does not run")
            let port = try #require(service.environment["SNS_HTTP_PORT"])
            #expect(nginx.contains("set $sns_upstream_\(target) \(target);"), "no variable names the group \(target)")
            // Its replicas re-resolved, and connections to them kept (idle ones closed before a drain ends).
            #expect(
                nginx.contains(
                    "upstream \(target) { zone \(target) 64k; server \(target):\(port) resolve; keepalive 64; keepalive_timeout 2s; }"
                ),
                "nginx.conf has no re-resolved upstream group for \(target):\(port)")
        }
    }

    /// Runs the container's start-up script on the real routes.conf: every route names a variable.
    @Test func startupScriptRewritesEveryRoute() throws {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("sns-routes-\(UUID()).conf")
        defer { try? FileManager.default.removeItem(at: output) }
        let process = try ChildProcess.spawn(
            "/bin/sh",
            arguments: [
                Repository.url("deploy/nginx/compose/40-sns-routes.sh").path,
                Repository.url("deploy/nginx/routes.conf").path, output.path,
            ],
            environment: ["PATH": "/usr/bin:/bin"])
        try #require(process.waitUntilExit() == .exited(0))
        let rewritten = try String(contentsOf: output, encoding: .utf8)
        #expect(Pattern.captures(#"proxy_pass (http://[a-z][^;]*);"#, in: rewritten).isEmpty)
        let original = Pattern.captures(#"proxy_pass http://([a-z][a-z0-9_]*);"#, in: routes)
        let variables = Pattern.captures(#"proxy_pass http://\$sns_upstream_([a-z][a-z0-9_]*);"#, in: rewritten)
        #expect(variables == original)
        #expect(
            rewritten.replacingOccurrences(of: "$sns_upstream_", with: "") == routes, "only proxy_pass targets change")
    }

    @Test func gatewayMountsTheConfigWhereTheScriptAndNginxExpectIt() throws {
        let gateway = try #require(compose["gateway"])
        let script = try Repository.text("deploy/nginx/compose/40-sns-routes.sh")
        #expect(gateway.volumes.contains("./deploy/nginx/compose/nginx.conf:/etc/nginx/nginx.conf:ro"))
        #expect(gateway.volumes.contains("./deploy/nginx/routes.conf:/etc/nginx/sns/routes.conf:ro"))
        #expect(
            gateway.volumes.contains("./deploy/nginx/compose/40-sns-routes.sh:/docker-entrypoint.d/40-sns-routes.sh:ro")
        )
        #expect(script.contains(#"source_file="${1:-/etc/nginx/sns/routes.conf}""#))
        #expect(script.contains(#"target_file="${2:-/etc/nginx/sns-routes.conf}""#))
        #expect(nginx.contains("include /etc/nginx/sns-routes.conf;"))
        // routes.conf serves the API description from `sns/openapi.json` under nginx's prefix (/etc/nginx in the image).
        #expect(gateway.volumes.contains("./docs/api/openapi.json:/etc/nginx/sns/openapi.json:ro"))
        #expect(routes.contains("location = /v1/openapi.json {") && routes.contains("alias sns/openapi.json;"))
        #expect(nginx.contains("listen 8080;"), "the published container port")
        #expect(nginx.contains("listen 8081;") && gateway.healthcheckTest == ["CMD", "sns-probe", "/health", "8081"])
    }

    @Test func namesAreReResolvedThroughDockerDNS() {
        #expect(nginx.contains("resolver 127.0.0.11 valid=10s"))
        // An upstream block resolves its names once at start unless its servers say `resolve` (nginx ≥ 1.27.3).
        for block in Pattern.captures(#"upstream ([a-z_]+ \{[^}]*\})"#, in: nginx) {
            #expect(
                block.contains(" resolve;") && block.contains(" zone "), "scaled replicas would be missed: \(block)")
        }
    }

    @Test func paymentWebhookIsRateLimited() {
        #expect(nginx.contains("limit_req_zone $binary_remote_addr zone=payments_webhook:"))
        let webhook = Pattern.captures(#"(?s)location = /v1/payments/webhook \{(.*?)\}"#, in: nginx).first ?? ""
        #expect(webhook.contains("limit_req zone=payments_webhook"))
        #expect(webhook.contains("proxy_pass http://$sns_upstream_market;"))
        #expect(
            !routes.contains("location = /v1/payments/webhook"), "routes.conf would define the webhook location twice")
    }
}
