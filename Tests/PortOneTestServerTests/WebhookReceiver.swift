import Foundation
import Hummingbird
import InProcessServer
import Logging
import NIOCore
import ServiceLifecycle

@testable import PortOneTestServer

/// What the test webhook receiver got.
actor WebhookInbox {
    struct Received: Sendable {
        var path: String
        var contentType: String?
        var body: [String: String]
    }

    private(set) var received: [Received] = []

    func record(_ item: Received) { received.append(item) }
}

/// Runs a tiny Hummingbird app on a free loopback port that records webhook POSTs: `/hook` answers 200,
/// `/reject` answers 500. Shut down gracefully when `body` returns.
func withWebhookReceiver<T>(
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ baseURL: String, _ inbox: WebhookInbox) async throws -> T
) async throws -> T {
    let inbox = WebhookInbox()
    let router = Router()
    for (path, status) in [("hook", HTTPResponse.Status.ok), ("reject", .internalServerError)] {
        router.post(RouterPath(path)) { request, context -> Response in
            let buffer = try await request.body.collect(upTo: 1 << 16)
            let object =
                (try? JSONSerialization.jsonObject(with: Data(String(buffer: buffer).utf8))) as? [String: String]
            await inbox.record(.init(path: path, contentType: request.headers[.contentType], body: object ?? [:]))
            return Response(status: status)
        }
    }
    var logger = Logger(label: "webhook-receiver")
    logger.logLevel = .warning
    let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
    let app = Application(
        router: router,
        configuration: .init(address: .hostname("127.0.0.1", port: 0)),
        onServerRunning: { continuation.yield($0.localAddress?.port ?? 0) },
        logger: logger
    )
    let serviceGroup = ServiceGroup(services: [app], logger: logger)
    let server = Task<Void, any Error> {
        defer { continuation.finish() }
        try await serviceGroup.run()
    }
    var iterator = ports.makeAsyncIterator()
    guard let port = await iterator.next() else { throw CancellationError() }
    let result: Result<T, any Error>
    do {
        result = .success(try await body("http://127.0.0.1:\(port)", inbox))
    } catch {
        result = .failure(error)
    }
    await serviceGroup.triggerGracefulShutdown()
    await ServerTask.end(server, within: .seconds(10), logger: logger)
    return try result.get()
}
