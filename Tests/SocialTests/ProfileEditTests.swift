import Foundation
import NIOCore
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// `PUT /v1/users/me/profile` and `POST /v1/users/me/nick/random` against the real auth and media processes.
@Suite("Profile edits")
struct ProfileEditTests {
    static let png = TestImages.png

    func multipart(_ fields: [(String, String)], image: [UInt8]? = nil) -> (ByteBuffer, String) {
        let boundary = "sns-\(UUID().uuidString)"
        var body = ByteBuffer()
        for (name, value) in fields {
            body.writeString("--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n")
        }
        if let image {
            body.writeString(
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"profile\"; filename=\"p\"\r\nContent-Type: image/jpg\r\n\r\n"
            )
            body.writeBytes(image)
            body.writeString("\r\n")
        }
        body.writeString("--\(boundary)--\r\n")
        return (body, "multipart/form-data; boundary=\(boundary)")
    }

    @Test func editNickPhoneAndImageAndGetTheProfileBack() async throws {
        try await withSocialService { api in
            let me = try await api.account()
            let nick = TestEnvironment.unique("new")
            let (body, type) = multipart(
                [("nick", nick), ("phoneNum", "01012345678"), ("birthDay", "19990101")], image: Self.png)
            let edited = try await api.send(.put, "/v1/users/me/profile", as: me, body: body, contentType: type)
            #expect(edited.status == 200, "\(edited.text)")
            let json = try edited.json
            #expect(json.string("nick") == nick)
            #expect(json.string("phoneNum") == "01012345678")
            #expect(json.string("birthDay") == "19990101")
            let image = try #require(json.string("profileImage"))
            #expect(image.hasPrefix("uploads/profiles/") && image.hasSuffix(".png"))
            #expect(json.string("email") == "\(me.nick)@example.com")

            let (spaced, spacedType) = multipart([("nick", "has space")])
            let refused = try await api.send(
                .put, "/v1/users/me/profile", as: me, body: spaced, contentType: spacedType)
            #expect(refused.status == 402, "\(refused.text)")
            #expect(try refused.json.keys == ["message"])
            #expect(
                try await api.send(
                    .put, "/v1/users/me/profile", as: me, body: ByteBuffer(string: "{}"),
                    contentType: "application/json"
                ).status == 400)
        }
    }

    @Test func randomNickIsFreshReadableAndWithoutWhitespace() async throws {
        try await withSocialService { api in
            let me = try await api.account()
            let first = try await api.send(.post, "/v1/users/me/nick/random", as: me)
            #expect(first.status == 200, "\(first.text)")
            let nick = try #require(try first.json.string("nick"))
            #expect(nick != me.nick)
            #expect(!nick.contains { $0.isWhitespace })
            #expect(nick.range(of: #"^\D+\d{4}$"#, options: .regularExpression) != nil, "\(nick)")
            let second = try await api.send(.post, "/v1/users/me/nick/random", as: me)
            #expect(try second.json.string("nick") != nick)
        }
    }
}
