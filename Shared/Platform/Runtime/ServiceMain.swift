import Foundation
import Hummingbird
import Logging

/// What every service executable does (`Services/<Name>/Main/main.swift`, after `ConcurrencyExecutor.install`):
/// read the configuration (a bad variable ends the process with 78, EX_CONFIG, naming it), bootstrap logging,
/// build the application and run it until SIGTERM (with the drain); any other error ends it with 1.
package enum ServiceMain {
    package static func run<Configuration, App: ApplicationProtocol>(
        _ name: String,
        configuration makeConfiguration: () throws -> Configuration,
        platform: (Configuration) -> PlatformConfiguration,
        build: (Configuration, Logger) async throws -> App
    ) async -> Never {
        do {
            let configuration = try makeConfiguration()
            Observability.bootstrapLogging(level: platform(configuration).logLevel)
            let app = try await build(configuration, Logger(label: "sns.\(name)"))
            try await app.runService(draining: platform(configuration).drain)
            exit(0)
        } catch let error as ConfigurationError {
            FileHandle.standardError.write(Data("\(name): \(error)\n".utf8))
            exit(78)  // EX_CONFIG
        } catch {
            FileHandle.standardError.write(Data("\(name): stopped by an error: \(String(reflecting: error))\n".utf8))
            exit(1)
        }
    }
}
