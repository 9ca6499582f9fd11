import Foundation
import AuthService
import Logging
import SNSPlatform

// The auth service executable: read configuration (exit non-zero naming a bad variable), run until SIGTERM.
do {
    let configuration = try AuthConfiguration()
    Observability.bootstrapLogging(level: configuration.platform.logLevel)
    let logger = Logger(label: "sns.auth")
    let app = try await buildApplication(configuration: configuration, logger: logger)
    try await app.runService()
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("auth: \(error)\n".utf8))
    exit(78)  // EX_CONFIG
}
