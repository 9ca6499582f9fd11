import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import SNSPlatform

/// `sns-bench`: the tools behind `bench/` (bench/README.md). It prints numbers; nothing here asserts anything.
@main
struct SNSBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-bench",
        abstract: "Benchmark tools: the ceiling server, the social-graph seeder and the constant-rate load generator.",
        subcommands: [CeilingCommand.self, SeedCommand.self, LoadCommand.self]
    )

    /// Tasks run on NIO's event loops, as in the services (SNSPlatform's `ConcurrencyExecutor`, same switch
    /// `SNS_CONCURRENCY_EXECUTOR=pool`), so the ceiling server is built the way the services are.
    static func main() async {
        // The load generator runs on one event loop: its pacing timer, its requests' tasks and its connections share
        // one thread, so a request crosses no thread on this side (two loops cost it about twice the CPU per request).
        // `SNS_BENCH_LOAD_LOOPS=n` runs it on n loops instead.
        // Elsewhere (the ceiling server) `SNS_EVENT_LOOPS` applies as in the services; NIO takes a loop count once.
        var environment = ProcessInfo.processInfo.environment
        if CommandLine.arguments.dropFirst().first == "load" {
            NIOSingletons.groupLoopCountSuggestion =
                environment["SNS_BENCH_LOAD_LOOPS"].flatMap(Int.init).map { max(1, $0) } ?? 1
            environment["SNS_EVENT_LOOPS"] = nil
        }
        ConcurrencyExecutor.install(from: environment)
        do {
            var command = try parseAsRoot()
            if var command = command as? any AsyncParsableCommand {
                try await command.run()
            } else {
                try command.run()
            }
        } catch {
            exit(withError: error)
        }
    }
}
