import ChatService
import Foundation
import Logging
import SNSPlatform

// The chat service executable: read configuration (exit 78 naming a bad variable), run until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
do {
    let configuration = try ChatConfiguration()
    Observability.bootstrapLogging(level: configuration.platform.logLevel)
    let app = try await buildApplication(configuration: configuration, logger: Logger(label: "sns.chat"))
    try await app.runService(draining: configuration.platform.drain)
} catch let error as ConfigurationError {
    FileHandle.standardError.write(Data("chat: \(error)\n".utf8))
    exit(78)  // EX_CONFIG
} catch {
    FileHandle.standardError.write(Data("chat: stopped by an error: \(String(reflecting: error))\n".utf8))
    exit(1)
}
