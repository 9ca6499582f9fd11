import Foundation
import MarketService
import SNSPlatform

// The market & payment verification service executable; `ServiceMain` reads its configuration and runs it
// until SIGTERM.
ConcurrencyExecutor.install(from: ProcessInfo.processInfo.environment)  // before any await
await ServiceMain.run(
    "market", configuration: { try MarketConfiguration() }, platform: \.platform,
    build: { try await buildApplication(configuration: $0, logger: $1) })
