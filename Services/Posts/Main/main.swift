import Foundation
import PostsService
import SNSPlatform

// The posts & feed service executable; `ServiceMain` reads its configuration and runs it until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "posts", configuration: { try PostsConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
