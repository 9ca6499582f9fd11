import NIOCore

/// What MultipartKit's callback parser reported while parsing one slice of the body. The callbacks are
/// synchronous, but writing a file is not, so they only record here; the receiver then applies the events
/// with `await`. At most one slice's worth (32 KiB) is ever held: consecutive body callbacks are merged.
///
/// Not `Sendable`: created, filled by the parser and drained inside one task.
final class ParserEvents {
    enum Event {
        case header(name: String, value: String)
        case body(ByteBuffer)
        case partComplete
    }

    private(set) var events: [Event] = []

    func header(_ name: String, _ value: String) {
        events.append(.header(name: name, value: value))
    }

    func body(_ buffer: inout ByteBuffer) {
        if case .body(var last) = events.last {
            events.removeLast()
            last.writeBuffer(&buffer)
            events.append(.body(last))
        } else {
            events.append(.body(buffer))
        }
    }

    func partComplete() {
        events.append(.partComplete)
    }

    /// The events recorded since the last call.
    func take() -> [Event] {
        defer { events.removeAll(keepingCapacity: true) }
        return events
    }
}
