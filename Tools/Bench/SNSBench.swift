import ArgumentParser

/// `sns-bench`: the tools behind `bench/` (bench/README.md). It prints numbers; nothing here asserts anything.
@main
struct SNSBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sns-bench",
        abstract: "Benchmark tools: the ceiling server, the social-graph seeder and the constant-rate load generator.",
        subcommands: [CeilingCommand.self, SeedCommand.self, LoadCommand.self]
    )
}
