import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// Federated sign-in through nginx and the real auth process, against the stack's identity-provider test server
/// (`sns-idp-test-server`, started by `./sns test`; tokens come from its sandbox API), and on to the social
/// service's "my info": the SeSAC study app's Firebase phone login shows the verified number as `phoneNum`.
@Suite("Federated sign-in through the gateway")
struct FederatedSignInThroughGatewayTests {
    let gateway: GatewayClient
    let idp: GatewayClient

    init() throws {
        gateway = try GatewayClient()
        idp = GatewayClient(baseURL: URL(string: try TestEnvironment.identityProviderURL())!)
    }

    func idToken(_ realm: String, _ claims: String) async throws -> String {
        let reply = try await idp.send("POST", "/__sandbox/id-tokens/\(realm)", json: claims)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try reply.json.string("idToken"))
    }

    func kakaoToken(_ body: String = "{}") async throws -> String {
        let reply = try await idp.send("POST", "/__sandbox/kakao/tokens", json: body)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try reply.json.string("access_token"))
    }

    @Test func firebasePhoneLoginMyInfoRenameWithdrawAndReplay() async throws {
        let subject = TestEnvironment.unique("e2efb")
        let phone = "+8210\(Int.random(in: 10_000_000...99_999_999))"
        let token = try await idToken("firebase", #"{"sub":"\#(subject)","phone_number":"\#(phone)"}"#)

        // The app presents the Firebase ID token: the same session as an email login.
        let login = try await gateway.send("POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(token)"}"#)
        #expect(login.status == 200, "\(login.text)")
        #expect(try login.json.keys == ["user_id", "email", "nick", "accessToken", "refreshToken"])
        let userId = try #require(try login.json.string("user_id"))
        let access = try #require(try login.json.string("accessToken"))
        let auth = ["Authorization": access]

        // My info (social's read model, from user-registered): the verified number as phoneNum.
        try await eventually("the profile shows the verified phone number") {
            let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: auth)
            return profile.status == 200 && (try? profile.json.string("phoneNum")) == phone
        }
        let profile = try await gateway.send("GET", "/v1/users/me/profile", headers: auth)
        #expect(try profile.json.string("user_id") == userId)
        #expect(try profile.json.string("email") == "\(userId)@firebase.invalid")

        // The generated nick can be changed like anyone's (multipart profile edit).
        let nick = TestEnvironment.unique("스터디")
        var form = MultipartForm()
        form.field("nick", nick)
        let edited = try await gateway.send(
            "PUT", "/v1/users/me/profile", body: form.finished(), contentType: form.contentType, headers: auth)
        #expect(edited.status == 200, "\(edited.text)")
        #expect(try edited.json.string("nick") == nick)
        #expect(try edited.json.string("phoneNum") == phone)

        // The next app start signs in again with a fresh token: the same account, the new nick.
        let nextToken = try await idToken("firebase", #"{"sub":"\#(subject)","phone_number":"\#(phone)"}"#)
        let again = try await gateway.send("POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(nextToken)"}"#)
        #expect(try again.json.string("user_id") == userId)
        #expect(try again.json.string("nick") == nick)

        // Withdraw; the old token replayed is refused and the account stays withdrawn.
        #expect(try await gateway.send("GET", "/v1/users/withdraw", headers: auth).status == 200)
        let replay = try await gateway.send("POST", "/v1/users/login/firebase", json: #"{"idToken":"\#(token)"}"#)
        #expect(replay.status == 401, "\(replay.text)")
        #expect(try replay.json.keys == ["message"])
    }

    @Test func appleAndKakaoLoginsThroughTheGateway() async throws {
        let nick = TestEnvironment.unique("apple")
        let appleToken = try await idToken("apple", #"{"sub":"\#(TestEnvironment.unique("e2eap"))"}"#)
        let apple = try await gateway.send(
            "POST", "/v1/users/login/apple", json: #"{"idToken":"\#(appleToken)","nick":"\#(nick)"}"#)
        #expect(apple.status == 200, "\(apple.text)")
        #expect(try apple.json.string("nick") == nick)
        #expect(try apple.json.string("email")?.hasSuffix("@apple.invalid") == true)

        let kakaoAccessToken = try await kakaoToken()
        let kakao = try await gateway.send(
            "POST", "/v1/users/login/kakao", json: #"{"oauthToken":"\#(kakaoAccessToken)"}"#)
        #expect(kakao.status == 200, "\(kakao.text)")
        #expect(try kakao.json.keys == ["user_id", "email", "nick", "accessToken", "refreshToken"])
        let access = try #require(try kakao.json.string("accessToken"))
        try await eventually("the Kakao account's profile") {
            try await gateway.send("GET", "/v1/users/me/profile", headers: ["Authorization": access]).status == 200
        }
        #expect(
            try await gateway.send("POST", "/v1/users/login/kakao", json: #"{"oauthToken":"not-a-kakao-token"}"#).status
                == 401)
    }
}
