import Dispatch
import Foundation
import Synchronization

/// SIGTERM/SIGINT handling through DispatchSource. Create it before doing anything observable
/// (printing the address), so a signal sent right after that cannot hit the default handler.
/// Used from the main thread only.
final class TerminationSignals {
    private let received = DispatchSemaphore(value: 0)
    private let name = SignalName()
    private var sources: [any DispatchSourceSignal] = []

    init() {
        let queue = DispatchQueue(label: "sns-dev-broker.signals")
        for (number, label) in [(SIGTERM, "SIGTERM"), (SIGINT, "SIGINT")] {
            signal(number, SIG_IGN)  // the dispatch source sees it instead of the default handler
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [received, name] in
                name.set(label)
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks the calling thread until a signal arrives; returns its name.
    ///
    /// The sources are deliberately never cancelled (keep this object alive until exit): on Linux,
    /// libdispatch blocks the signal and re-raises it on the receiving thread; cancelling the source
    /// restores the default disposition, and a copy still pending there would then kill the process
    /// (exit 143 instead of a clean shutdown).
    func wait() -> String {
        received.wait()
        return name.get()
    }
}

private final class SignalName: Sendable {
    private let value = Mutex("signal")
    func set(_ name: String) { value.withLock { $0 = name } }
    func get() -> String { value.withLock { $0 } }
}
