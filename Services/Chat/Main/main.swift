import ChatService
import Foundation
import SNSPlatform

// The chat service executable; `ServiceMain` reads its configuration and runs it until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "chat", configuration: { try ChatConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
