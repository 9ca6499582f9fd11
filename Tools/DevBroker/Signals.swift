import Dispatch
import Foundation
import Synchronization

/// Blocks the calling thread until SIGTERM or SIGINT arrives; returns the signal's name.
func waitForTerminationSignal() -> String {
    let received = DispatchSemaphore(value: 0)
    let queue = DispatchQueue(label: "sns-dev-broker.signals")
    let names = [SIGTERM: "SIGTERM", SIGINT: "SIGINT"]
    let caught = SignalBox()
    var sources: [any DispatchSourceSignal] = []
    for (number, name) in names {
        signal(number, SIG_IGN)  // let the dispatch source see it instead of the default handler
        let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
        source.setEventHandler {
            caught.set(name)
            received.signal()
        }
        source.resume()
        sources.append(source)
    }
    received.wait()
    sources.forEach { $0.cancel() }
    return caught.get()
}

/// The first signal's name, written on the signal queue and read after the semaphore.
private final class SignalBox: Sendable {
    private let name = Mutex<String>("signal")
    func set(_ value: String) { name.withLock { $0 = value } }
    func get() -> String { name.withLock { $0 } }
}
