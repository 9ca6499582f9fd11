import Foundation
import SNSTestSupport
import Testing

/// Phones abort uploads all the time: an upload whose client went away mid-body is the client's doing — counted in
/// `sns_client_aborted_requests_total`, logged as a warning, never a 5xx.
@Suite("Aborted uploads")
struct AbortedUploadTests {
    /// The value of one sample of media's metrics (0 when absent).
    func sample(_ line: String, at media: URL) async throws -> Double {
        let metrics = try await GatewayClient(baseURL: media).send("GET", "/metrics", withKey: false).text
        let match = metrics.split(separator: "\n").first { $0.hasPrefix(line + " ") }
        return match.flatMap { Double($0.split(separator: " ").last ?? "") } ?? 0
    }

    @Test func anUploadAbandonedMidBodyIsNoServerError() async throws {
        let gateway = try GatewayClient()
        let session = try await AppSession.signUp(gateway)
        let token = await session.accessToken
        let media = URL(string: try TestEnvironment.mediaURL())!
        let aborted = "sns_client_aborted_requests_total"
        let failed =
            #"hb_requests{http_route="/v1/posts/files",http_request_method="POST",http_response_status_code="500"}"#
        let (abortedBefore, failedBefore) = (try await sample(aborted, at: media), try await sample(failed, at: media))
        let partsBefore = Self.partFiles()

        let head =
            "POST /v1/posts/files HTTP/1.1\r\nHost: media\r\nSesacKey: \(gateway.apiKey)\r\nAuthorization: \(token)\r\n"
            + "Content-Type: multipart/form-data; boundary=XX\r\nContent-Length: 100000\r\n\r\n"
            + "--XX\r\nContent-Disposition: form-data; name=\"files\"; filename=\"a.png\"\r\nContent-Type: image/png\r\n\r\n"
        for _ in 0..<3 {
            try RawSocket.abandon(
                host: media.host ?? "127.0.0.1", port: media.port ?? 80,
                request: Array(head.utf8) + TestImages.png.prefix(40))
        }
        try await eventually("media counted the three abandoned uploads") {
            try await sample(aborted, at: media) >= abortedBefore + 3
        }
        #expect(try await sample(failed, at: media) == failedBefore, "an abandoned upload was answered 500")
        // Nothing is left behind: the files being received when the clients went away are removed. (Other tests'
        // uploads may be in flight meanwhile; theirs are moved into place when they finish.)
        let partsAfterAborts = Self.partFiles().subtracting(partsBefore)
        try await eventually("the abandoned uploads' part files are removed") {
            Self.partFiles().isDisjoint(with: partsAfterAborts)
        }
    }

    /// The files media is receiving right now (`<media root>/.tmp/upload-….part`; the test stack's media root is
    /// `<state>/media`).
    static func partFiles() -> Set<String> {
        guard let state = ProcessInfo.processInfo.environment["SNS_TEST_STATE_DIR"] else { return [] }
        let names = (try? FileManager.default.contentsOfDirectory(atPath: state + "/media/.tmp")) ?? []
        return Set(names.filter { $0.hasSuffix(".part") })
    }
}
