import Foundation
import SNSTestSupport
import Testing

/// Found by schemathesis (decision 0010): a multipart part whose header name holds a byte ≥ 0x80 trapped inside
/// MultipartKit 4.7.1 and took the social service down (media parses uploads with the same parser). Now both
/// answer 400 `{"message"}` and keep serving.
@Suite("Multipart bodies that crashed the parser")
struct MultipartCrashRegressionTests {
    @Test func nonASCIIPartHeaderNamesAre400AndTheServicesSurvive() async throws {
        let probe = try ConformanceProbe()
        let account = try await probe.signUp("mpc")
        let boundary = "c81e3fec2a432ce65c9587f955a54d2d"
        let body = Data("--\(boundary)\r\n".utf8) + Data([0xC2, 0x83, 0xC3, 0xA8]) + Data("7--\(boundary)--\r\n".utf8)
        let contentType = "multipart/form-data; boundary=\(boundary)"
        for (method, path) in [("PUT", "/v1/users/me/profile"), ("POST", "/v1/posts/files")] {
            for _ in 0..<2 {
                try await probe.expect(400, method, path, body: body, contentType: contentType, headers: account.auth)
            }
        }
        // Both processes still answer (a crashed one would make nginx answer 502).
        let alive = try await probe.poll("GET", "/v1/users/search?nick=mpc", headers: account.auth)
        #expect(alive.status == 200)
        var images = MultipartForm()
        images.file("files", filename: "x", mimeType: "image/png", bytes: OpenAPIConformanceTests.png)
        try await probe.expect(
            200, "POST", "/v1/posts/files", body: images.finished(), contentType: images.contentType,
            headers: account.auth)
    }
}
