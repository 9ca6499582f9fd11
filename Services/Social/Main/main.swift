import Foundation
import SNSPlatform
import SocialService

// The social graph service executable; `ServiceMain` reads its configuration and runs it until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "social", configuration: { try SocialConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
