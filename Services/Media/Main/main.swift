import Foundation
import MediaService
import SNSPlatform

// The media service executable; `ServiceMain` reads its configuration and runs it until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "media", configuration: { try MediaConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
