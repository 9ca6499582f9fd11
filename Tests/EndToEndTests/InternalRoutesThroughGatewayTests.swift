import Foundation
import SNSKafka
import SNSPlatform
import SNSTestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The internal endpoints of the profile edit against the running stack: the real media and auth processes
/// serve them to a caller inside (as the social service calls them, with the user's token and `SesacKey`),
/// and the nginx gateway never lets them through from outside, whatever the spelling of the path.
@Suite("Internal profile routes: served inside, 444 through the gateway")
struct InternalRoutesThroughGatewayTests {
    /// A tiny valid PNG (1×1).
    static let png: [UInt8] = [
        0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0x00, 0x00, 0x0D, 0x49, 0x48, 0x44, 0x52,
        0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x01, 0x08, 0x02, 0x00, 0x00, 0x00, 0x90, 0x77, 0x53,
        0xDE, 0x00, 0x00, 0x00, 0x0C, 0x49, 0x44, 0x41, 0x54, 0x78, 0x9C, 0x63, 0x60, 0x68, 0xF8, 0x0F,
        0x00, 0x02, 0x03, 0x01, 0x80, 0x24, 0x61, 0xF5, 0x97, 0x00, 0x00, 0x00, 0x00, 0x49, 0x45, 0x4E,
        0x44, 0xAE, 0x42, 0x60, 0x82,
    ]

    @Test func profileEditCallsWorkInsideAndAreUnknownThroughTheGateway() async throws {
        let gateway = try GatewayClient()
        // The stack's auth and media processes, called directly the way the social service calls them.
        let media = GatewayClient(baseURL: URL(string: try TestEnvironment.mediaURL())!, apiKey: gateway.apiKey)
        let authService = GatewayClient(baseURL: URL(string: try TestEnvironment.authURL())!, apiKey: gateway.apiKey)
        let name = TestEnvironment.unique("int")
        let email = "\(name)@example.com"
        #expect(
            try await gateway.send(
                "POST", "/v1/users/join", json: #"{"email":"\#(email)","password":"password123","nick":"\#(name)"}"#
            ).status == 200)
        let login = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        let userId = try #require(try login.json.string("user_id"))
        let token = try #require(try login.json.string("accessToken"))
        let auth = ["Authorization": token]

        // From outside, through the gateway: unknown routes, and nothing happens.
        let outsideImage = try await gateway.send(
            "POST", "/internal/v1/profile-images", body: Data(Self.png), contentType: "image/png", headers: auth)
        #expect(outsideImage.status == 444)
        #expect(try outsideImage.json.keys == ["message"])
        let outsideEdit = try await gateway.send(
            "PUT", "/internal/v1/profile", json: #"{"nick":"\#(name)x"}"#, headers: auth)
        #expect(outsideEdit.status == 444)
        for path in [
            "/internal", "/internal/", "/internal/v1/profile", "//internal/v1/profile", "/%69nternal/v1/profile",
            "/v1/%2e%2e/internal/v1/profile", "/v1/posts/..%2F..%2Finternal/v1/profile", "/internal/v1/../v1/profile",
        ] {
            let reply = try await gateway.send("PUT", path, json: #"{"nick":"\#(name)y"}"#, headers: auth)
            #expect(reply.status == 444, "\(path) → \(reply.status) \(reply.text)")
        }
        let unchanged = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        #expect(try unchanged.json.string("nick") == name)

        // Inside (as the social service calls them): media stores the image, auth accepts the path media issued.
        let stored = try await media.send(
            "POST", "/internal/v1/profile-images", body: Data(Self.png), contentType: "application/octet-stream",
            headers: ["Authorization": token])
        #expect(stored.status == 200, "\(stored.text)")
        let path = try #require(try stored.json.string("path"))
        #expect(path.hasPrefix("uploads/profiles/") && path.hasSuffix(".png"))
        let newNick = name + "n"
        let edited = try await authService.send(
            "PUT", "/internal/v1/profile", json: #"{"nick":"\#(newNick)","profileImage":"\#(path)"}"#,
            headers: ["Authorization": token])
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try edited.json.keys == ["user_id", "email", "nick", "profileImage", "updatedAt"])

        // The client sees it: login answers the new nick and image, and the image downloads through the gateway.
        let after = try await gateway.send(
            "POST", "/v1/users/login", json: #"{"email":"\#(email)","password":"password123"}"#)
        #expect(try after.json.string("nick") == newNick)
        #expect(try after.json.string("profileImage") == path)
        let image = try await gateway.send("GET", "/v1/" + path, headers: auth)
        #expect(image.status == 200)
        #expect(image.body == Self.png)

        // And the change left auth through its outbox: user-registered, then user-updated with the new values.
        let messages = try await TestPlatform.collectEvents(topic: Topic.users, key: userId, count: 2)
        #expect(messages.map { $0.header(EventHeader.eventType) } == ["user-registered", "user-updated"])
        let updated = try EventCoding.decoder().decode(
            EventEnvelope<UserUpdated>.self, from: Data(try #require(messages.last?.value)))
        #expect(updated.payload.nick == newNick)
        #expect(updated.payload.profileImage == path)
    }
}
