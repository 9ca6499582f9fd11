import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import MediaService
import NIOCore
import NIOEmbedded
import PostgresNIO
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

/// An in-process media service under test: real PostgreSQL and broker, a private schema, a fresh temp
/// directory as the media root and a random signing key, so tests running in parallel never see each
/// other's files (a garbage-collection pass with grace 0 in one test must not touch another's uploads).
struct MediaTestContext: Sendable {
    let client: MediaClient
    let configuration: MediaConfiguration
    let root: MediaRoot
    let catalog: MediaCatalog
    let signer: MediaPathSigner
    let postgres: DatabasePool
    /// Sends a request straight to the application's responder (for bodies the test client cannot express,
    /// such as a lazily generated stream).
    let respond: @Sendable (Request) async throws -> Response

    /// `POST path` with a generated body, as the app would send it (`SesacKey`, the bare token), straight to the
    /// responder; `length` is sent as `Content-Length` when given.
    func post(
        _ body: CountingBody, to path: String, token: String, contentType: String = Multipart.contentType,
        length: Int? = nil
    ) async throws -> Response {
        var headers = HTTPFields()
        headers[HTTPField.Name("SesacKey")!] = client.apiKey
        headers[.authorization] = token
        headers[.contentType] = contentType
        if let length { headers[.contentLength] = String(length) }
        let request = Request(
            head: HTTPRequest(method: .post, scheme: "http", authority: "localhost", path: path, headerFields: headers),
            body: RequestBody(asyncSequence: body))
        return try await respond(request)
    }

    /// Runs one garbage-collection pass over this service's schema and root.
    func collect(grace: Duration) async throws -> MediaGarbageCollector.PassResult {
        let collector = MediaGarbageCollector(
            catalog: catalog, root: root, postgres: postgres, grace: grace, logger: TestEnvironment.logger)
        return try await collector.collect()
    }

    /// Applies one event to the references consumer's handler, in a transaction, as the consumer would.
    func apply<P: EventPayload>(_ payload: P, aggregateId: String) async throws {
        let envelope = EventEnvelope(
            type: P.eventType.rawValue, aggregateId: aggregateId, producer: "test", requestId: nil, payload: payload)
        let message = KafkaConsumerMessage(
            topic: P.eventType.topic, partition: 0, offset: 0, key: Array(aggregateId.utf8),
            value: Array(try EventCoding.encoder().encode(envelope)), headers: [], timestamp: nil)
        let event = try IncomingEvent(message: message)
        let handler = MediaReferencesProjection(catalog: catalog)
        // As on the service's connections, the media schema first on the search path (its prepared statements name
        // tables unqualified).
        let searchPath = PostgresQuery(unsafeSQL: "SET LOCAL search_path TO \"\(catalog.schema.name)\", public")
        try await postgres.transaction(logger: TestEnvironment.logger) { connection in
            try await connection.query(searchPath, logger: TestEnvironment.logger)
            try await handler.handle(event, connection: connection, logger: TestEnvironment.logger)
        }
    }

    /// Where a stored file lives on disk.
    func location(of path: String) throws -> String {
        root.location(of: try #require(MediaPath(path)))
    }

    /// Regular files currently in the temp directory, with their sizes.
    func temporaryFiles() throws -> [String: Int] {
        var result: [String: Int] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: root.temporaryDirectory) {
            let attributes = try FileManager.default.attributesOfItem(atPath: root.temporaryDirectory + "/" + name)
            result[name] = (attributes[.size] as? NSNumber)?.intValue ?? 0
        }
        return result
    }
}

/// Runs an in-process media service and hands its test context to `body`.
func withMediaService(
    maxFileBytes: Int = 5 * 1024 * 1024, maxVideoBytes: Int = 10 * 1024 * 1024, maxFiles: Int = 5,
    setup: TestingSetup = .router,
    _ body: @escaping @Sendable (MediaTestContext) async throws -> Void
) async throws {
    let rootPath = FileManager.default.temporaryDirectory.path + "/" + TestEnvironment.unique("sns-media-test-")
    defer { try? FileManager.default.removeItem(atPath: rootPath) }
    var settings = MediaConfiguration(
        platform: try TestEnvironment.platformConfiguration(serviceName: "media"),
        root: rootPath, signingKey: "test-signing-key-" + UUID().uuidString + UUID().uuidString,
        maxFileBytes: maxFileBytes, maxVideoBytes: maxVideoBytes, maxFiles: maxFiles,
        schema: TestEnvironment.unique("media_"))
    settings.consumesEvents = false  // tests apply events to the handler themselves
    let configuration = settings
    let app = try await buildApplication(configuration: configuration, logger: TestEnvironment.logger)
    let respond = try await responderFunction(app)
    let apiKey = try TestEnvironment.apiKey()
    try await TestEnvironment.withDatabase { client in
        let postgres = DatabasePool(client)
        let schema = try SQLIdentifier(configuration.schema)
        try await app.test(setup) { client in
            try await body(
                MediaTestContext(
                    client: MediaClient(client: client, apiKey: apiKey), configuration: configuration,
                    root: MediaRoot(path: rootPath), catalog: MediaCatalog(schema: schema, client: postgres),
                    signer: try MediaPathSigner(secret: configuration.signingKey), postgres: postgres, respond: respond)
            )
        }
    }
}

/// A function that hands a request to `app`'s responder with a fresh request context.
private func responderFunction<App: ApplicationProtocol>(_ app: App) async throws
    -> @Sendable (Request) async throws -> Response
{
    let responder = try await app.responder
    let logger = app.logger
    return { request in
        let context = App.Context(
            source: ApplicationRequestContextSource(channel: NIOAsyncTestingChannel(), logger: logger))
        return try await responder.respond(to: request, context: context)
    }
}

/// One part of a `multipart/form-data` body.
struct FormPart: Sendable {
    var name: String
    var filename: String?
    var contentType: String?
    var bytes: [UInt8]

    static func file(
        _ bytes: [UInt8], name: String = "files", filename: String = "image", contentType: String = "image/jpeg"
    ) -> FormPart {
        FormPart(name: name, filename: filename, contentType: contentType, bytes: bytes)
    }

    static func text(_ name: String, _ value: String) -> FormPart {
        FormPart(name: name, filename: nil, contentType: nil, bytes: Array(value.utf8))
    }
}

enum Multipart {
    static let boundary = "alamofire.boundary.5c3d7e1f9a2b4c6d"
    static let contentType = "multipart/form-data; boundary=\(boundary)"

    /// The head of a part (boundary line and headers), as Alamofire writes it.
    static func head(_ part: FormPart, first: Bool) -> [UInt8] {
        var text = (first ? "" : "\r\n") + "--\(boundary)\r\n"
        text += "Content-Disposition: form-data; name=\"\(part.name)\""
        if let filename = part.filename { text += "; filename=\"\(filename)\"" }
        text += "\r\n"
        if let contentType = part.contentType { text += "Content-Type: \(contentType)\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    static let end = Array("\r\n--\(boundary)--\r\n".utf8)

    static func body(_ parts: [FormPart]) -> ByteBuffer {
        var buffer = ByteBuffer()
        for (index, part) in parts.enumerated() {
            buffer.writeBytes(head(part, first: index == 0))
            buffer.writeBytes(part.bytes)
        }
        buffer.writeBytes(end)
        return buffer
    }
}

/// Speaks like the iOS apps: `SesacKey` on every request, the bare access token in `Authorization`.
struct MediaClient: Sendable {
    let client: any TestClientProtocol
    let apiKey: String

    typealias Reply = TestReply

    func send(
        _ method: HTTPRequest.Method, _ path: String, token: String? = nil, headers extra: [String: String] = [:],
        body: ByteBuffer? = nil, apiKey: String?? = .none
    ) async throws -> Reply {
        try await client.send(
            AppRequest(
                method, path, apiKey: AppRequest.key(apiKey, default: self.apiKey), token: token,
                body: body.map { Array(buffer: $0) }, headers: extra))
    }

    /// `POST /v1/posts/files` with the given parts.
    func upload(
        _ parts: [FormPart], token: String?, apiKey: String?? = .none, contentType: String = Multipart.contentType
    ) async throws -> Reply {
        try await send(
            .post, "/v1/posts/files", token: token, headers: ["Content-Type": contentType], body: Multipart.body(parts),
            apiKey: apiKey)
    }

    /// `POST /internal/v1/profile-images` with the image as the whole body, as the social service sends it.
    func uploadProfileImage(
        _ bytes: [UInt8], token: String?, apiKey: String?? = .none,
        contentType: String = "application/octet-stream"
    ) async throws -> Reply {
        try await send(
            .post, "/internal/v1/profile-images", token: token, headers: ["Content-Type": contentType],
            body: ByteBuffer(bytes: bytes), apiKey: apiKey)
    }

    /// `GET /v1/<path>`.
    func download(_ path: String, token: String?, headers: [String: String] = [:]) async throws -> Reply {
        try await send(.get, "/v1/" + path, token: token, headers: headers)
    }
}

/// A user id and a valid access token for it, signed with the test key (the media service verifies locally
/// and keeps no sessions, so no account is needed).
func testUser(expiresIn seconds: TimeInterval = 600) async throws -> (userId: String, token: String) {
    let userId = ObjectID.generate()
    return (userId, try await signAccessToken(userId: userId, expiresIn: seconds))
}

func signAccessToken(userId: String, expiresIn seconds: TimeInterval) async throws -> String {
    let signer = try await AccessTokenSigner(privateKeyPEM: try TestEnvironment.jwtPrivateKeyPEM())
    let now = Date()
    return try await signer.sign(
        AccessTokenClaims(
            userId: userId, sessionId: ObjectID.generate(),
            issuedAt: now.addingTimeInterval(-60), expiresAt: now.addingTimeInterval(seconds)))
}

extension TestReply {
    /// The `files` array of an upload reply. Throws for any other answer: tests index this array, and a failed
    /// upload must fail its test, not crash the test process with an index out of range.
    var files: [String] {
        get throws {
            guard status == 200, let files = (try json["files"] as? [Any])?.compactMap({ $0 as? String }) else {
                throw UnexpectedReply(status: status, text: "expected 200 with files: \(text)")
            }
            return files
        }
    }
}
