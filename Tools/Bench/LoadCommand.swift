import ArgumentParser
import Foundation
import NIOCore
import NIOPosix
import Synchronization

/// A constant-rate, open-loop load (the wrk2 model): request *i* is due at `start + i / rate` whatever the replies
/// do, and its latency runs from that due time to the end of its reply. So a stalled server is charged for every
/// request that should have gone out meanwhile (no coordinated omission), and past the knee latencies grow
/// without bound instead of the rate quietly dropping.
struct LoadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "load",
        abstract: "Constant-rate load of a request mix over a seeded scenario; prints one Markdown table row."
    )

    @Option(help: "The scenario file written by `sns-bench seed`.") var scenario: String
    @Option(help: "Requests per second.") var rate: Double
    @Option(help: "Seconds measured.") var duration: Double = 30
    @Option(help: "Seconds at the same rate before measuring, not counted.") var warmup: Double = 5
    @Option(help: "Shares of each operation (feed, timeline, create).") var mix = Mix(
        argument: "feed=60,timeline=30,create=10")!
    @Option(help: "HTTP/1.1 connections to the gateway at most.") var connections = 64
    @Option(help: "limit of every read.") var pageSize = 10
    @Option(help: "Requests in flight at most; beyond it a due request is counted as an error, not sent.")
    var maxInFlight = 4096
    @Option(help: "Seconds a request may wait for its reply before it counts as an error.") var timeout: Double = 30
    @Option(help: "Random seed of the request sequence.") var seed: UInt64 = 2
    @Flag(help: "Print the table header before the row.") var header = false

    func validate() throws {
        guard rate > 0, duration > 0, warmup >= 0 else {
            throw ValidationError("--rate and --duration must be positive")
        }
        guard timeout > 0 else { throw ValidationError("--timeout must be positive") }
    }

    func run() async throws {
        let scenario = try Scenario.load(scenario)
        guard !scenario.users.isEmpty else { throw ValidationError("the scenario has no users") }
        let client = try LoadClient(
            baseURL: scenario.gateway, connections: connections, timeout: .nanoseconds(Int64(timeout * 1e9)),
            loop: MultiThreadedEventLoopGroup.singleton.any())
        let result = await drive(client, scenario: scenario)
        await client.shutdown()
        if header { print(LoadResult.header) }
        print(result.row)
        log(result.answerSizes)
        if !result.errors.isEmpty {
            log(
                "errors: "
                    + result.errors.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(
                        separator: ", "))
        }
    }

    private func drive(_ client: LoadClient, scenario: Scenario) async -> LoadResult {
        let sink = SampleSink()
        let clock = ContinuousClock()
        let interval = Duration.nanoseconds(Int64((1e9 / rate).rounded()))
        let total = Int(((warmup + duration) * rate).rounded())
        let warmupCount = Int((warmup * rate).rounded())
        var rng = SplitMix64(seed: seed)
        var factory = RequestFactory(client: client, scenario: scenario, pageSize: pageSize)
        let start = clock.now + .milliseconds(200)
        var lateness: [Double] = []
        lateness.reserveCapacity(total)
        let pace = EventLoopPace(loop: client.loop)

        // Each reply completes its request by a callback on the client's loop, the loop this task runs on: no task per
        // request.
        for index in 0..<total {
            let due = start + interval * index
            if clock.now < due { await pace.sleep(for: clock.now.duration(to: due)) }
            let operation = mix.pick(using: &rng)
            let measured = index >= warmupCount
            if measured { lateness.append(due.duration(to: clock.now).milliseconds) }
            let request: LoadRequest
            do {
                request = try factory.make(operation, using: &rng)
            } catch {
                // Counted, so a run whose requests could not be built does not look like a quiet one.
                sink.record(
                    Sample(
                        operation: operation, measured: measured, latency: 0, completedAt: due,
                        error: "not built (\(error))", bodyBytes: 0))
                continue
            }
            guard sink.inFlight.add(1, ordering: .relaxed).newValue <= maxInFlight else {
                sink.inFlight.subtract(1, ordering: .relaxed)
                sink.record(
                    Sample(
                        operation: operation, measured: measured, latency: 0, completedAt: due,
                        error: "not sent (\(maxInFlight) in flight)", bodyBytes: 0))
                continue
            }
            client.send(request) { result in
                var failure: String?
                var bodyBytes = 0
                switch result {
                case .success(let reply):
                    bodyBytes = reply.bodyBytes
                    if reply.status != 200 { failure = "HTTP \(reply.status) on \(operation.rawValue)" }
                case .failure(let error):
                    let reason = (error as? BenchError).map(\.description) ?? "\(type(of: error)): \(error)"
                    failure = "\(reason) on \(operation.rawValue)"
                }
                let end = clock.now
                sink.inFlight.subtract(1, ordering: .relaxed)
                sink.record(
                    Sample(
                        operation: operation, measured: measured, latency: due.duration(to: end).milliseconds,
                        completedAt: end, error: failure, bodyBytes: bodyBytes))
            }
        }
        // Every request ends within the timeout (the client's sweep fails the overdue ones).
        while sink.inFlight.load(ordering: .relaxed) > 0 { await pace.sleep(for: .milliseconds(5)) }
        let windowStart = start + interval * warmupCount
        return LoadResult(
            target: rate, mix: mix, samples: sink.all.filter(\.measured), windowStart: windowStart, lateness: lateness)
    }
}

struct Sample: Sendable {
    let operation: Operation
    let measured: Bool
    let latency: Double
    let completedAt: ContinuousClock.Instant
    let error: String?
    let bodyBytes: Int
}

/// Collected by the requests' completions; `Mutex`/`Atomic` make it safe to share between them.
final class SampleSink: Sendable {
    let inFlight = Atomic<Int>(0)
    private let samples = Mutex<[Sample]>([])

    func record(_ sample: Sample) { samples.withLock { $0.append(sample) } }
    var all: [Sample] { samples.withLock { $0 } }
}

struct LoadResult {
    let target: Double
    let mix: Mix
    let samples: [Sample]
    let windowStart: ContinuousClock.Instant
    let lateness: [Double]

    static let header = """
        | target req/s | achieved req/s | errors | p50 | p90 | p99 | max | feed p50 / p99 | timeline p50 / p99 | create p50 / p99 | send lag p99 |
        |---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
        """

    var errors: [String: Int] {
        samples.compactMap(\.error).reduce(into: [:]) { $0[$1, default: 0] += 1 }
    }

    /// The mean body size of each operation's successful answers: a page of the seeded scenario is kilobytes, an
    /// empty one a few dozen bytes (a scenario whose users or follows are gone still answers 200).
    var answerSizes: String {
        let sizes = Operation.allCases.compactMap { operation -> String? in
            let answers = samples.filter { $0.operation == operation && $0.error == nil }
            guard !answers.isEmpty else { return nil }
            return "\(operation.rawValue) \(answers.map(\.bodyBytes).reduce(0, +) / answers.count) B"
        }
        return "mean answer: " + sizes.joined(separator: ", ")
    }

    var row: String {
        let ok = samples.filter { $0.error == nil }
        let end = samples.map(\.completedAt).max() ?? windowStart
        let seconds = max(0.001, windowStart.duration(to: end).milliseconds / 1000)
        let all = LatencySummary(ok.map(\.latency))
        func perOperation(_ operation: Operation) -> String {
            let summary = LatencySummary(ok.filter { $0.operation == operation }.map(\.latency))
            return summary.count == 0
                ? "–" : "\(formatMilliseconds(summary.percentile(50))) / \(formatMilliseconds(summary.percentile(99)))"
        }
        let failed = samples.count - ok.count
        let errorText =
            failed == 0
            ? "0" : String(format: "%d (%.1f %%)", failed, 100 * Double(failed) / Double(max(1, samples.count)))
        return
            "| \(Int(target)) | \(Int((Double(ok.count) / seconds).rounded())) | \(errorText) | \(formatMilliseconds(all.percentile(50))) | "
            + "\(formatMilliseconds(all.percentile(90))) | \(formatMilliseconds(all.percentile(99))) | \(formatMilliseconds(all.max)) | "
            + "\(perOperation(.feed)) | \(perOperation(.timeline)) | \(perOperation(.create)) | "
            + "\(formatMilliseconds(LatencySummary(lateness).percentile(99))) |"
    }
}

extension Duration {
    var milliseconds: Double {
        let (seconds, attoseconds) = components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

/// Sleeps with a timer of the event loop the load runs on. `Task.sleep` goes through Dispatch's timer thread on Linux:
/// two thread hand-offs per request at a constant rate, which made the load generator one of the busiest processes
/// of the machine it measures.
struct EventLoopPace {
    let loop: any EventLoop

    func sleep(for duration: Duration) async {
        let nanoseconds = Int64(duration.milliseconds * 1_000_000)
        guard nanoseconds > 0 else { return }
        try? await loop.scheduleTask(in: .nanoseconds(nanoseconds)) {}.futureResult.get()
    }
}
