import AuthService
import Foundation
import SNSPlatform

// The auth service executable; `ServiceMain` reads its configuration and runs it until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "auth", configuration: { try AuthConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
