import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of wjjhhj0914's **LSLP-iOS** (github.com/wjjhhj0914/LSLP-iOS, April 2026, SwiftUI, iOS 15, Swift 5 mode
/// with `MainActor` as the default isolation). The app is written for the 2024–25 API (G2), but its last commit stops
/// at one screen: an e-mail login. `ContentView` shows `LoginView` (the "MV" screen: the view calls the service
/// itself); `LoginMVIView` with `LoginContainer` (the "MVI draft") sends the same request through the same service but
/// is reached only from its Xcode preview. After a successful login the screen stays where it is and shows
/// "<nick>님 로그인 성공"; a failure shows the error's `localizedDescription`. There is no sign-up, post, feed, profile,
/// refresh or withdraw anywhere in the app.
///
/// The app's network layer is one hand-made request, no library:
/// - `LSLP-iOS/Features/Auth/Services/AuthService.swift`: `AuthService.login(email:password:)` builds a `URLRequest`
///   for `APIKey.BASE_URL + AuthEndpoint.login.path` (`"/v1/users/login"`), `POST`, with exactly three headers set
///   by `setValue(_:forHTTPHeaderField:)`: `Content-Type: application/json`, `accept: application/json` (lower case)
///   and `SeSACKey` (that spelling) = `APIKey.SESAC_KEY`; the body is `JSONEncoder().encode(LoginRequest)` (no
///   options: `/` is written as `\/`); `timeoutInterval = 30`. It sends with `URLSession.data(for:)`; any status
///   outside 200..<300 throws `AuthServiceError.httpStatus(code, body as UTF-8)` without reading the body as JSON;
///   a 2xx answer is decoded with a plain `JSONDecoder()` as `LoginResponse` and the two tokens are saved in the
///   service's `TokenStore`; a decoding failure throws `AuthServiceError.decodingFailed`.
/// - No `ProductId` header: `makeLoginRequest` reads only `APIKey.BASE_URL` and `APIKey.SESAC_KEY`, so the login
///   reaches the server as a G1 login (the same account and session; the answer differs from a G2 one only in the
///   leading slash of `profileImage`, which `LoginResponse` does not read).
/// - `LSLP-iOS/Features/Auth/Models/LoginModels.swift`: `LoginRequest {email, password}`, `LoginResponse` (`user_id`
///   as `userID`, `email`, `nick`, `accessToken`, `refreshToken`, all required Strings; no `profileImage`),
///   `AuthTokens`, `String.maskedToken`.
/// - `LSLP-iOS/Shared/Auth/TokenStore.swift`: `InMemoryTokenStore` (an actor holding the last saved pair; it is what
///   both screens pass) and `KeychainTokenStore` (no `KeychainManaging` implementation exists, so it is never used).
///   Nothing ever reads the stored tokens: no request carries `Authorization`, and nothing handles 419 or 418.
/// - The screens: `LSLP-iOS/Features/Auth/MV/LoginView.swift` (`canSubmit`: the e-mail trimmed of whitespace and
///   newlines is not empty and the password is not empty; the e-mail is sent trimmed, the password as typed;
///   `isLoading` guards against a second send) and `LSLP-iOS/Features/Auth/MVI/LoginContainer.swift`,
///   `LoginIntent.swift`, `LoginState.swift` (the same checks; the answer goes to `state.loggedInUser`).
///
/// Files mirrored: `LSLP-iOS/Features/Auth/Services/AuthService.swift`, `LSLP-iOS/Features/Auth/Models/LoginModels.swift`,
/// `LSLP-iOS/Shared/Auth/TokenStore.swift`, `LSLP-iOS/Features/Auth/MV/LoginView.swift`,
/// `LSLP-iOS/Features/Auth/MVI/LoginContainer.swift`, `LSLP-iOS/Features/Auth/MVI/LoginIntent.swift`,
/// `LSLP-iOS/Features/Auth/MVI/LoginState.swift`, `LSLP-iOS/ContentView.swift`.
///
/// Departures, all test-side:
/// - `APIKey.swift` is not in the repository (`.gitignore`). `BASE_URL` is taken to be the host without a trailing
///   slash, so the path is `/v1/users/login`; `SESAC_KEY` is the test stack's key.
/// - The app cannot make an account. Each journey first signs up the way a G2 app of the same server does (WeeMo's
///   e-mail check and join, with `ProductId`; accounts are shared across apps); one journey also withdraws that
///   account from the G2 app. Those setup calls are not the app's.
/// - `URLSession`'s own `Accept-Language`, `Accept-Encoding` and `User-Agent` headers are not sent. The body's keys
///   are written in declaration order, as iOS 17's `JSONEncoder` writes them (`Wjjhhj0914Twin.encoder`); on iOS 15 and
///   16 the app's encoder may write `password` first.
/// - The console logging (`logRequest`, `logResponse`, the token store's `print`) is left out; the masking it uses
///   (`maskedToken`) is mirrored and checked because `LoginResponse.description` is what the app prints.
enum Wjjhhj0914Twin {
    // MARK: Models (LSLP-iOS/Features/Auth/Models/LoginModels.swift)

    struct LoginRequest: Encodable, Sendable {
        let email: String
        let password: String
    }

    struct LoginResponse: Decodable, Sendable, Equatable {
        let userID: String
        let email: String
        let nick: String
        let accessToken: String
        let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case email
            case nick
            case accessToken
            case refreshToken
        }

        var tokens: AuthTokens {
            AuthTokens(accessToken: accessToken, refreshToken: refreshToken)
        }

        /// `extension LoginResponse: CustomStringConvertible` (what `AuthService` prints after a login).
        var description: String {
            """
            LoginResponse(
              userID: \(userID),
              email: \(email),
              nick: \(nick),
              accessToken: \(Wjjhhj0914Twin.masked(accessToken)),
              refreshToken: \(Wjjhhj0914Twin.masked(refreshToken))
            )
            """
        }
    }

    struct AuthTokens: Sendable, Equatable {
        let accessToken: String
        let refreshToken: String
    }

    /// `String.maskedToken`: up to 10 characters as they are, otherwise the first 4 and the last 4 around "...".
    static func masked(_ token: String) -> String {
        guard token.count > 10 else { return token }
        return "\(token.prefix(4))...\(token.suffix(4))"
    }

    // MARK: The request (LSLP-iOS/Features/Auth/Services/AuthService.swift)

    /// `private enum AuthEndpoint`.
    enum AuthEndpoint {
        case login

        var path: String {
            switch self {
            case .login: "/v1/users/login"
            }
        }
    }

    /// `makeLoginRequest(body:)`: `APIKey.BASE_URL + path`, `POST`, three headers in the order the app sets them,
    /// `JSONEncoder().encode(body)`.
    static func loginRequest(_ body: LoginRequest, sesacKey: String) throws -> TwinRequest {
        TwinRequest(
            "POST", AuthEndpoint.login.path,
            headers: [("Content-Type", "application/json"), ("accept", "application/json"), ("SeSACKey", sesacKey)],
            body: try encoder.encode(body))
    }

    /// The app's plain `JSONEncoder()` as iOS 17+ runs it: keys in declaration order (`email`, `password`), `/`
    /// escaped as `\/`, no other formatting. This toolchain's `JSONEncoder` orders keys at random, so `.sortedKeys` is
    /// set to get that same order (alphabetical and declaration order agree for these two keys).
    static var encoder: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        return encoder
    }

    /// `enum AuthServiceError: LocalizedError` (`decodingFailed` keeps the error's text: `Error` is not `Sendable`).
    enum AuthServiceError: Error, Sendable, Equatable {
        case invalidURL
        case invalidResponse
        case httpStatus(Int, String?)
        case decodingFailed(String)

        /// `errorDescription`, which is what `localizedDescription` gives and both screens show.
        var errorDescription: String {
            switch self {
            case .invalidURL: "BASE_URL or endpoint path is invalid."
            case .invalidResponse: "The server response was not a valid HTTP response."
            case .httpStatus(let statusCode, let message): "Request failed with status \(statusCode). \(message ?? "")"
            case .decodingFailed(let error): "Failed to decode login response: \(error)"
            }
        }
    }

    // MARK: Token store (LSLP-iOS/Shared/Auth/TokenStore.swift)

    actor InMemoryTokenStore {
        private var cachedTokens: AuthTokens?

        func save(_ tokens: AuthTokens) { cachedTokens = tokens }
        func loadTokens() -> AuthTokens? { cachedTokens }
        func clear() { cachedTokens = nil }
    }

    /// Every request the phone sent, as "METHOD path status", with the request and the answer, in order (test-side
    /// bookkeeping: the screens keep only the nick or the error text).
    actor Wire {
        private(set) var lines: [String] = []
        private(set) var requests: [TwinRequest] = []
        private(set) var replies: [GatewayClient.Reply] = []

        func record(_ request: TwinRequest, _ reply: GatewayClient.Reply) {
            lines.append("\(request.method) \(request.path) \(reply.status)")
            requests.append(request)
            replies.append(reply)
        }
    }

    /// `struct AuthService: AuthServicing`, with the session replaced by the twin client.
    struct AuthService: Sendable {
        let client: TwinClient
        let tokenStore: InMemoryTokenStore
        let wire: Wire

        /// `login(email:password:)`: build, send, `validate(response:data:)`, decode, save the tokens.
        func login(email: String, password: String) async throws -> LoginResponse {
            let request = try Wjjhhj0914Twin.loginRequest(
                LoginRequest(email: email, password: password), sesacKey: client.apiKey)
            let reply = try await client.send(request)
            await wire.record(request, reply)
            guard 200..<300 ~= reply.status else {
                throw AuthServiceError.httpStatus(reply.status, String(data: Data(reply.body), encoding: .utf8))
            }
            do {
                let decoded = try client.decode(LoginResponse.self, from: reply)
                await tokenStore.save(decoded.tokens)
                return decoded
            } catch {
                throw AuthServiceError.decodingFailed("\(error)")
            }
        }
    }

    // MARK: Screens

    /// `LoginView` (LSLP-iOS/Features/Auth/MV/LoginView.swift), the screen `ContentView` shows. Its `init` makes a new
    /// `AuthService(session: .shared, tokenStore: InMemoryTokenStore())`, so every launch starts with no tokens.
    actor LoginScreen {
        let authService: AuthService
        var email = ""
        var password = ""
        private(set) var isLoading = false
        private(set) var errorMessage: String?
        private(set) var successMessage: String?

        init(client: TwinClient, wire: Wire) {
            authService = AuthService(client: client, tokenStore: InMemoryTokenStore(), wire: wire)
        }

        func type(email: String, password: String) {
            self.email = email
            self.password = password
        }

        var canSubmit: Bool {
            !email.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && !password.isEmpty
        }

        /// The 로그인 button (`.disabled(!canSubmit || isLoading)`), then `login()`. Returns whether anything was sent.
        @discardableResult
        func tapLogin() async -> Bool {
            guard canSubmit, !isLoading else { return false }
            isLoading = true
            errorMessage = nil
            successMessage = nil
            do {
                let response = try await authService.login(
                    email: email.trimmingCharacters(in: .whitespacesAndNewlines), password: password)
                successMessage = "\(response.nick)님 로그인 성공"
            } catch let error as AuthServiceError {
                errorMessage = error.errorDescription
            } catch {
                errorMessage = "\(error)"
            }
            isLoading = false
            return true
        }
    }

    /// `LoginIntent` (LSLP-iOS/Features/Auth/MVI/LoginIntent.swift).
    enum LoginIntent: Sendable {
        case emailChanged(String)
        case passwordChanged(String)
        case loginButtonTapped
        case errorDismissed
    }

    /// `LoginState` (LSLP-iOS/Features/Auth/MVI/LoginState.swift).
    struct LoginState: Sendable {
        var email = ""
        var password = ""
        var isLoading = false
        var errorMessage: String?
        var loggedInUser: LoginResponse?

        var canSubmit: Bool {
            !email.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty && !password.isEmpty && !isLoading
        }
    }

    /// `LoginContainer` (LSLP-iOS/Features/Auth/MVI/LoginContainer.swift), the MVI draft. `send(.loginButtonTapped)`
    /// starts a `Task`; here the tap is awaited, so one intent is one finished call.
    actor LoginContainer {
        let authService: AuthService
        private(set) var state = LoginState()

        init(client: TwinClient, wire: Wire) {
            authService = AuthService(client: client, tokenStore: InMemoryTokenStore(), wire: wire)
        }

        func send(_ intent: LoginIntent) async {
            switch intent {
            case .emailChanged(let email): state.email = email
            case .passwordChanged(let password): state.password = password
            case .loginButtonTapped: await login()
            case .errorDismissed: state.errorMessage = nil
            }
        }

        private func login() async {
            guard state.canSubmit else { return }
            state.isLoading = true
            state.errorMessage = nil
            do {
                let response = try await authService.login(
                    email: state.email.trimmingCharacters(in: .whitespacesAndNewlines), password: state.password)
                state.loggedInUser = response
            } catch let error as AuthServiceError {
                state.errorMessage = error.errorDescription
            } catch {
                state.errorMessage = "\(error)"
            }
            state.isLoading = false
        }
    }
}

// MARK: Test-side setup (not the app's requests)

/// An account made in a G2 app of the same server (WeeMo's sign-up: `POST /v1/users/validation/email`, then
/// `POST /v1/users/join`, both with `ProductId`); the join answers tokens, kept for the withdrawal in that app.
private struct Wjjhhj0914Account: Sendable {
    let userId: String
    let email: String
    let nick: String
    let password: String
    let g2AccessToken: String
}

private struct Wjjhhj0914JoinBody: Encodable {
    let email: String
    let password: String
    let nick: String
}

private func wjjhhj0914G2Headers(_ client: TwinClient, _ extra: [String: String] = [:]) -> [String: String] {
    ["SeSACKey": client.apiKey, "ProductId": TestEnvironment.productId].merging(extra) { $1 }
}

private func wjjhhj0914SignUpInAG2App(_ client: TwinClient, password: String) async throws -> Wjjhhj0914Account {
    let tail = TestEnvironment.unique("")
    let email = "hyojung\(tail)@example.com"
    let nick = "효정\(tail)"
    let check = try await client.gateway.send(
        "POST", "/v1/users/validation/email", body: try JSONEncoder().encode(["email": email]),
        contentType: "application/json", headers: wjjhhj0914G2Headers(client), withKey: false)
    #expect(check.status == 200, "G2 e-mail check: \(check.text)")
    let joined = try await client.gateway.send(
        "POST", "/v1/users/join",
        body: try JSONEncoder().encode(Wjjhhj0914JoinBody(email: email, password: password, nick: nick)),
        contentType: "application/json", headers: wjjhhj0914G2Headers(client), withKey: false)
    #expect(joined.status == 200, "G2 join: \(joined.text)")
    return Wjjhhj0914Account(
        userId: try #require(try joined.json.string("user_id")), email: email, nick: nick, password: password,
        g2AccessToken: try #require(try joined.json.string("accessToken")))
}

/// The G2 app's 회원탈퇴 (`GET /v1/users/withdraw` with `ProductId`).
private func wjjhhj0914WithdrawInAG2App(_ client: TwinClient, _ account: Wjjhhj0914Account) async throws {
    let withdrawn = try await client.gateway.send(
        "GET", "/v1/users/withdraw", body: nil, contentType: nil,
        headers: wjjhhj0914G2Headers(client, ["Authorization": account.g2AccessToken]), withKey: false)
    #expect(withdrawn.status == 200, "G2 withdraw: \(withdrawn.text)")
}

@Suite("wjjhhj0914 LSLP-iOS twin")
struct Wjjhhj0914TwinTests {
    typealias App = Wjjhhj0914Twin

    /// The first screen: the button stays off for an empty or blank e-mail and an empty password; the login request
    /// byte for byte (three headers, no `ProductId`, no `Authorization`, `JSONEncoder`'s `\/`); `LoginResponse`
    /// decoded, the tokens stored, the success line; a second tap on the same screen (a new session); a relaunch
    /// forgets the tokens.
    @Test func logsInWithAnAccountMadeInAG2App() async throws {
        let client = try TwinClient()
        // A password with `/`, a quote and Hangul: `JSONEncoder` writes `\/` and `\"`, the server reads them back.
        let account = try await wjjhhj0914SignUpInAG2App(client, password: "새싹/2026\"ok")
        let wire = App.Wire()
        let screen = App.LoginScreen(client: client, wire: wire)

        // Nothing is sent until the trimmed e-mail and the password are non-empty.
        await screen.type(email: "", password: account.password)
        #expect(await screen.tapLogin() == false)
        await screen.type(email: " \n\t ", password: account.password)
        #expect(await screen.tapLogin() == false)
        await screen.type(email: account.email, password: "")
        #expect(await screen.tapLogin() == false)
        #expect(await wire.lines.isEmpty)

        // The e-mail pasted with spaces and a newline around it: the app trims it, the password goes as typed.
        await screen.type(email: "  \(account.email)\n", password: account.password)
        #expect(await screen.canSubmit)
        #expect(await screen.tapLogin())
        #expect(await wire.lines == ["POST /v1/users/login 200"])
        let request = try #require(await wire.requests.first)
        #expect(request.method == "POST" && request.path == "/v1/users/login" && request.query == nil)
        #expect(request.headers.map(\.0) == ["Content-Type", "accept", "SeSACKey"])
        #expect(request.headers.map(\.1) == ["application/json", "application/json", client.apiKey])
        let body = String(decoding: try #require(request.body), as: UTF8.self)
        #expect(body == #"{"email":"\#(account.email)","password":"새싹\/2026\"ok"}"#, "\(body)")

        // The answer as the app reads it: the success line, the stored pair, the masked print.
        #expect(await screen.successMessage == "\(account.nick)님 로그인 성공")
        #expect(await screen.errorMessage == nil)
        #expect(await screen.isLoading == false)
        let stored = try #require(await screen.authService.tokenStore.loadTokens())
        #expect(!stored.accessToken.isEmpty && !stored.refreshToken.isEmpty)
        #expect(stored.accessToken != account.g2AccessToken, "a login starts a session of its own")

        // The answer the app decoded: the account made in the G2 app, and what `AuthService` prints.
        let answer = try client.decode(App.LoginResponse.self, from: try #require(await wire.replies.last))
        #expect(answer.userID == account.userId)
        #expect(answer.email == account.email && answer.nick == account.nick)
        #expect(answer.tokens == stored)
        let printed = answer.description
        #expect(printed.contains("userID: \(account.userId)"))
        #expect(printed.contains("accessToken: \(stored.accessToken.prefix(4))...\(stored.accessToken.suffix(4))"))
        #expect(!printed.contains(stored.accessToken) && !printed.contains(stored.refreshToken))

        // The screen stays where it is after a success; a second tap logs in again and replaces the stored pair.
        #expect(await screen.tapLogin())
        #expect(await wire.lines == ["POST /v1/users/login 200", "POST /v1/users/login 200"])
        let replaced = try #require(await screen.authService.tokenStore.loadTokens())
        #expect(replaced.accessToken != stored.accessToken && replaced.refreshToken != stored.refreshToken)
        #expect(await screen.successMessage == "\(account.nick)님 로그인 성공")

        // A relaunch: `ContentView` makes a new `LoginView` with a new `InMemoryTokenStore`; the user is signed out.
        let relaunched = App.LoginScreen(client: client, wire: wire)
        #expect(await relaunched.authService.tokenStore.loadTokens() == nil)
        #expect(await relaunched.successMessage == nil)
    }

    /// What a failed login shows: the raw `{message}` after "Request failed with status 401."; the password is not
    /// trimmed; an unknown e-mail reads the same; the e-mail in capitals is found; the button keeps working; an
    /// account withdrawn in the G2 app cannot log in here any more.
    @Test func failedLoginsShowTheServersAnswer() async throws {
        let client = try TwinClient()
        let account = try await wjjhhj0914SignUpInAG2App(client, password: "sesac1234")
        let wire = App.Wire()
        let screen = App.LoginScreen(client: client, wire: wire)

        // A wrong password: 401; the screen shows the status and the body as received.
        await screen.type(email: account.email, password: "sesac12345")
        #expect(await screen.tapLogin())
        let wrongReply = try #require(await wire.replies.last)
        #expect(wrongReply.status == 401, "\(wrongReply.text)")
        let message = try client.decode(TwinMessage.self, from: wrongReply).message
        #expect(!message.isEmpty)
        let wrongShown = try #require(await screen.errorMessage)
        #expect(wrongShown == "Request failed with status 401. \(wrongReply.text)", "\(wrongShown)")
        #expect(wrongShown.contains(message))
        #expect(await screen.successMessage == nil)
        #expect(await screen.isLoading == false)
        #expect(await screen.authService.tokenStore.loadTokens() == nil)

        // The password with a trailing space (the app trims only the e-mail): 401 as well.
        await screen.type(email: account.email, password: "sesac1234 ")
        #expect(await screen.tapLogin())
        #expect(await screen.errorMessage == wrongShown)

        // An e-mail nobody has: the same 401 and the same text (nothing tells an unknown account from a wrong
        // password).
        await screen.type(email: "nobody\(TestEnvironment.unique(""))@example.com", password: account.password)
        #expect(await screen.tapLogin())
        #expect(await screen.errorMessage == wrongShown)
        #expect(
            await wire.lines == [
                "POST /v1/users/login 401", "POST /v1/users/login 401", "POST /v1/users/login 401",
            ])

        // The e-mail typed in capitals (the field does not capitalize; the user did): sent as typed, found anyway,
        // and `LoginResponse.email` is the address as it was registered.
        await screen.type(email: account.email.uppercased(), password: account.password)
        #expect(await screen.tapLogin())
        #expect(await screen.errorMessage == nil)
        #expect(await screen.successMessage == "\(account.nick)님 로그인 성공")
        let typedBody = String(decoding: try #require(await wire.requests.last?.body), as: UTF8.self)
        #expect(typedBody.contains(account.email.uppercased()))
        let upper = try client.decode(App.LoginResponse.self, from: try #require(await wire.replies.last))
        #expect(upper.email == account.email && upper.userID == account.userId)

        // The account is withdrawn in the G2 app; here the next login is refused with the same text as a wrong
        // password, and the stored pair of the earlier login stays in memory (nothing reads or clears it).
        try await wjjhhj0914WithdrawInAG2App(client, account)
        let before = await screen.authService.tokenStore.loadTokens()
        #expect(before != nil)
        await screen.type(email: account.email, password: account.password)
        #expect(await screen.tapLogin())
        #expect(await wire.lines.last == "POST /v1/users/login 401")
        #expect(await screen.errorMessage == wrongShown)
        #expect(await screen.successMessage == nil)
        #expect(await screen.authService.tokenStore.loadTokens() == before)
    }

    /// The MVI draft (`LoginMVIView` + `LoginContainer`): the same request through the same service; a success, then
    /// a failed login on the same screen, which keeps the earlier success on screen; `errorDismissed`.
    @Test func theMVIDraftSendsTheSameLogin() async throws {
        let client = try TwinClient()
        let account = try await wjjhhj0914SignUpInAG2App(client, password: "mvi/draft")
        let wire = App.Wire()
        let container = App.LoginContainer(client: client, wire: wire)

        // Intents fill the state; the button does nothing before both fields are filled.
        await container.send(.emailChanged(account.email))
        await container.send(.loginButtonTapped)
        #expect(await wire.lines.isEmpty)
        await container.send(.passwordChanged(account.password))
        #expect(await container.state.canSubmit)
        await container.send(.loginButtonTapped)
        #expect(await wire.lines == ["POST /v1/users/login 200"])
        let body = String(decoding: try #require(await wire.requests.first?.body), as: UTF8.self)
        #expect(body == #"{"email":"\#(account.email)","password":"mvi\/draft"}"#, "\(body)")
        let user = try #require(await container.state.loggedInUser)
        #expect(user.userID == account.userId && user.nick == account.nick && user.email == account.email)
        #expect(await container.authService.tokenStore.loadTokens() == user.tokens)
        #expect(await container.state.errorMessage == nil)
        #expect(await container.state.isLoading == false)

        // The password is changed to a wrong one and the button tapped again: 401, the error is shown, but
        // `loggedInUser` is never cleared, so "<nick>님 로그인 성공" stays on screen under the error.
        await container.send(.passwordChanged("mvi/draft2"))
        await container.send(.loginButtonTapped)
        #expect(await wire.lines == ["POST /v1/users/login 200", "POST /v1/users/login 401"])
        let shown = try #require(await container.state.errorMessage)
        #expect(shown.hasPrefix("Request failed with status 401. {"), "\(shown)")
        let stale = await container.state.loggedInUser?.nick
        withKnownIssue(
            "LSLP-iOS defect (MVI draft): LSLP-iOS/Features/Auth/MVI/LoginContainer.swift's login() resets errorMessage but never loggedInUser, so after a later failed login LoginMVIView shows the earlier \"님 로그인 성공\" line and the error together (LoginView resets its successMessage)"
        ) {
            #expect(stale == nil)
        }
        #expect(await container.authService.tokenStore.loadTokens() == user.tokens)

        // The error is dismissed; the right password again logs in with a new session.
        await container.send(.errorDismissed)
        #expect(await container.state.errorMessage == nil)
        await container.send(.passwordChanged(account.password))
        await container.send(.loginButtonTapped)
        #expect(await wire.lines.last == "POST /v1/users/login 200")
        let second = try #require(await container.state.loggedInUser)
        #expect(second.userID == account.userId && second.tokens != user.tokens)
        #expect(await container.authService.tokenStore.loadTokens() == second.tokens)
    }
}
