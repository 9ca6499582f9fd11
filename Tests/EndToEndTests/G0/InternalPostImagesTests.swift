import Foundation
import SNSTestSupport
import Testing

/// Media's internal `POST /internal/v1/post-images` (decision 0011), which the posts service calls for the images of
/// a G0 post: served inside (the caller's token and SesacKey; a posts-kind path issued to that user, which a post
/// then accepts exactly like an upload of `POST /v1/posts/files`), never through the gateway.
@Suite("Internal post images: served inside, 444 through the gateway")
struct InternalPostImagesTests {
    @Test func storesPostImagesInsideAndIsUnknownThroughTheGateway() async throws {
        let gateway = try GatewayClient()
        // The stack's media process, called directly the way posts calls it for G0's inline images.
        let media = GatewayClient(baseURL: URL(string: try TestEnvironment.mediaURL())!, apiKey: gateway.apiKey)
        let name = TestEnvironment.unique("g0i")
        #expect(
            try await gateway.send(
                "POST", "/join", json: #"{"email":"\#(name)@example.com","password":"password123","nick":"\#(name)"}"#
            ).status == 200)
        let login = try await gateway.send(
            "POST", "/login", json: #"{"email":"\#(name)@example.com","password":"password123"}"#)
        let token = try #require(try login.json.string("token"))

        let outside = try await gateway.send(
            "POST", "/internal/v1/post-images", body: Data(TestImages.png), contentType: "image/png",
            headers: ["Authorization": token])
        #expect(outside.status == 444)

        let stored = try await media.send(
            "POST", "/internal/v1/post-images", body: Data(TestImages.png), contentType: "application/octet-stream",
            headers: ["Authorization": token])
        #expect(stored.status == 200, "\(stored.text)")
        #expect(try stored.json.keys == ["path"])
        let path = try #require(try stored.json.string("path"))
        #expect(path.hasPrefix("uploads/posts/") && path.hasSuffix(".png"))
        let notImage = try await media.send(
            "POST", "/internal/v1/post-images", body: Data("text".utf8), contentType: "application/octet-stream",
            headers: ["Authorization": token])
        #expect(notImage.status == 400)

        // The path is the author's: a post accepts it (G1 JSON here), the same as an upload of POST /v1/posts/files.
        let post = try await gateway.send(
            "POST", "/v1/posts", json: #"{"product_id":"\#(name)","files":["\#(path)"]}"#,
            headers: ["Authorization": token])
        #expect(post.status == 200, "\(post.text)")
        #expect(try post.json["files"] as? [String] == [path])
        #expect(try await gateway.send("GET", "/\(path)", headers: ["Authorization": token]).body == TestImages.png)
    }
}
