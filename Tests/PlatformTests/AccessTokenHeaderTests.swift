import HTTPTypes
import Hummingbird
import Testing

@testable import SNSPlatform

/// The apps send the bare token in `Authorization`; some libraries add `Bearer `. Both, with stray spaces.
@Suite("Access token header")
struct AccessTokenHeaderTests {
    func token(_ value: String?) -> String? {
        var fields = HTTPFields()
        if let value { fields[.authorization] = value }
        let request = Request(
            head: HTTPRequest(method: .get, scheme: "http", authority: "x", path: "/", headerFields: fields),
            body: .init(buffer: .init()))
        return AuthenticationMiddleware.token(from: request)
    }

    @Test func bareAndBearerTokensAreTakenAsTheyAre() {
        #expect(token("eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("  eyJ.abc.def\t") == "eyJ.abc.def")
        #expect(token("Bearer eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("bearer   eyJ.abc.def ") == "eyJ.abc.def")
        #expect(token("BEARER eyJ.abc.def") == "eyJ.abc.def")
        #expect(token("Bearereyj") == "Bearereyj")
        #expect(token("토큰") == "토큰")
    }

    @Test func emptyOrMissingIsNoToken() {
        #expect(token(nil) == nil)
        #expect(token("") == nil)
        #expect(token("   ") == nil)
        #expect(token("Bearer ") == "Bearer", "a scheme without a token is an (invalid) token")
    }
}
