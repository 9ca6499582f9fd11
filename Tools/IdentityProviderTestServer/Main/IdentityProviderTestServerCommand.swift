import ArgumentParser
import Foundation
import IdentityProviderTestServer
import Logging

/// `sns-idp-test-server`: Firebase-, Apple- and Kakao-like identity providers as one process, for the local stack
/// and the end-to-end tests (see Tools/IdentityProviderTestServer/README.md). Its `/__sandbox/` API has no
/// authentication: bind it to loopback only.
@main
struct IdentityProviderTestServerCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-idp-test-server",
        abstract:
            "Identity-provider test server: Firebase and Apple JWKS + RS256 ID tokens, a Kakao-like user API, and an unauthenticated /__sandbox/ API."
    )

    @Option(help: "Address to bind.")
    var host = "127.0.0.1"

    @Option(help: "Port to bind (0 = any free port; see --address-file).")
    var port = 8191

    @Option(help: "Firebase project id: ID tokens' aud, and iss https://securetoken.google.com/<project>.")
    var firebaseProject = "sns-test-project"

    @Option(help: "Sign in with Apple client id (ID tokens' aud).")
    var appleClientId = "com.example.sns"

    @Option(help: "Kakao app id that issued tokens belong to.")
    var kakaoAppId = 100_001

    @Option(help: "Cache-Control max-age of the JWKS answers, seconds.")
    var jwksMaxAge = 300

    @Option(help: "After binding, write \"host:port\" to this file.")
    var addressFile: String?

    @Option(help: "Log level (trace, debug, info, notice, warning, error, critical).")
    var logLevel = "info"

    func validate() throws {
        guard (0...65535).contains(port) else { throw ValidationError("--port must be 0…65535") }
        guard jwksMaxAge >= 0 else { throw ValidationError("--jwks-max-age must not be negative") }
        guard Logger.Level(rawValue: logLevel) != nil else { throw ValidationError("unknown --log-level \(logLevel)") }
    }

    func run() async throws {
        var logger = Logger(label: "idp-test-server")
        logger.logLevel = Logger.Level(rawValue: logLevel) ?? .info
        let provider = IdentityProvider(
            settings: .init(
                firebaseProject: firebaseProject, appleClientId: appleClientId, kakaoAppId: kakaoAppId,
                jwksMaxAge: jwksMaxAge))
        let addressFile = self.addressFile
        let log = logger
        try await IdentityProviderTestServer.run(provider: provider, host: host, port: port, logger: logger) {
            host, port in
            log.info("identity-provider test server listening", metadata: ["address": "\(host):\(port)"])
            if let addressFile {
                try? "\(host):\(port)".write(toFile: addressFile, atomically: true, encoding: .utf8)
            }
        }
    }
}
