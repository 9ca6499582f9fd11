import Dispatch
import Foundation
import Synchronization

/// What a signal asks the broker to do.
enum BrokerSignal: Sendable, Equatable {
    /// SIGTERM or SIGINT: destroy the cluster and exit 0.
    case terminate(String)
    /// SIGUSR1: a simulated outage — every broker drops its connections and refuses new ones; data is kept.
    case outageStart
    /// SIGUSR2: the outage ends; clients reconnect to the same addresses and find everything as it was.
    case outageEnd
}

/// Signal handling through DispatchSource. Create it before doing anything observable (printing the
/// address), so a signal sent right after that cannot hit the default handler. The handlers only queue
/// what arrived; the main thread acts on it (the mock cluster is used from the main thread only).
final class BrokerSignals {
    private let received = DispatchSemaphore(value: 0)
    private let pending = PendingSignals()
    private var sources: [any DispatchSourceSignal] = []

    init() {
        let queue = DispatchQueue(label: "sns-dev-broker.signals")
        let handled: [(Int32, BrokerSignal)] = [
            (SIGTERM, .terminate("SIGTERM")), (SIGINT, .terminate("SIGINT")),
            (SIGUSR1, .outageStart), (SIGUSR2, .outageEnd),
        ]
        for (number, meaning) in handled {
            signal(number, SIG_IGN)  // the dispatch source sees it instead of the default handler
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler { [received, pending] in
                pending.append(meaning)
                received.signal()
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks the calling thread until a signal arrives; returns what it asks for, in arrival order.
    ///
    /// The sources are deliberately never cancelled (keep this object alive until exit): on Linux,
    /// libdispatch blocks the signal and re-raises it on the receiving thread; cancelling the source
    /// restores the default disposition, and a copy still pending there would then kill the process
    /// (exit 143 instead of a clean shutdown).
    func wait() -> BrokerSignal {
        received.wait()
        return pending.removeFirst()
    }
}

private final class PendingSignals: Sendable {
    private let queue = Mutex<[BrokerSignal]>([])
    func append(_ signal: BrokerSignal) { queue.withLock { $0.append(signal) } }
    /// Called once per semaphore signal, so the queue is never empty here.
    func removeFirst() -> BrokerSignal { queue.withLock { $0.removeFirst() } }
}
