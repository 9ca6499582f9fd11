import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// LSLPPractice (github.com/yujaehui/LSLPPractice, April 2024, G1): a practice app for the LSLP server with four
/// screens and no posts. The login screen is the navigation root after every launch and pushes the join screen; a
/// successful login replaces it with the home screen, whose person button opens the profile screen (nick, email and
/// a 회원탈퇴 button); a successful withdrawal puts a new login screen back.
///
/// The app's network layer (`LSLPPractice/Network/`):
/// - `Router.swift` conforms to the app's own `TargetType.swift`: `baseURL` comes from `APIKey`, the paths are
///   `/users/join`, `/users/login`, `/auth/refresh`, `/users/withdraw`, `/users/me/profile`, joined with
///   `url.appendingPathComponent(path)`; `urlRequest.allHTTPHeaderFields = header` per case, with the names of
///   `HTTPHeader.swift` (`Content-Type`, `SesacKey`, `Authorization`, `Refresh`) and the tokens read from
///   `UserDefaults` (force-unwrapped); join and login carry a body written by a `JSONEncoder` with
///   `.convertToSnakeCase` (`Query/JoinQuery.swift`, `Query/LoginQuery.swift`); no query items anywhere.
/// - `NetworkManager.swift` wraps each call in an RxSwift `Single` over `AF.request(urlRequest)
///   .responseDecodable(of:)` without `validate()`, so an answer the model cannot decode is the failure. `login`
///   stores `accessToken` and `refreshToken` in `UserDefaults`. Only `profileCheck` passes an interceptor.
/// - `AuthInterceptor.swift`: `adapt` puts the stored access token in `Authorization`; `retry` (Alamofire asks it
///   when the serializer fails) acts on a 419 only: `NetworkManager.refresh()` (`GET /auth/refresh`, no
///   interceptor), stores the new access token and retries, with no retry limit; a failed refresh ends the call.
/// - Models (`Network/Model/`): `JoinModel.swift`, `LoginModel.swift`, `ProfileModel.swift` (custom init:
///   `profileImage` defaults to `""`), `TokenModel.swift`, `WithdrawModel.swift`; a plain `JSONDecoder()`.
///
/// The view models (`Login/JoinViewModel.swift`, `Login/LoginViewModel.swift`, `Profile/ProfileViewModel.swift`)
/// `flatMap` each button tap into one of those `Single`s, so a failed call ends that tap subscription and the button
/// sends nothing until its screen is made again.
///
/// Departures, all test-side:
/// - `APIKey.swift` is not in the repository. Its `baseURL` is taken to end in `/v1`, so the paths resolve as
///   `/v1/users/join` and so on.
/// - Alamofire's default `Accept-Encoding`, `Accept-Language` and `User-Agent` headers are not sent.
/// - The buttons' 1-second `debounce` is not reproduced: one tap is one call.
/// - Token expiry is produced by re-signing the access token as expired and moving the refresh token's expiry into
///   the past; the twin remembers the signed-in `user_id` for that (the app stores only the two tokens).
enum LSLPPracticeTwin {
    // MARK: Queries and models (LSLPPractice/Network/Query, LSLPPractice/Network/Model)

    // LSLPPractice: Network/Query/JoinQuery.swift
    struct JoinQuery: Encodable, Sendable {
        let nick: String
        let email: String
        let password: String
    }

    // LSLPPractice: Network/Query/LoginQuery.swift
    struct LoginQuery: Encodable, Sendable {
        let email: String
        let password: String
    }

    // LSLPPractice: Network/Model/JoinModel.swift
    struct JoinModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    // LSLPPractice: Network/Model/LoginModel.swift (no profileImage)
    struct LoginModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let accessToken: String
        let refreshToken: String
    }

    // LSLPPractice: Network/Model/ProfileModel.swift (custom init: every key required but `profileImage`, which
    // defaults to "")
    struct ProfileModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String

        enum CodingKeys: CodingKey {
            case user_id
            case email
            case nick
            case profileImage
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.user_id = try container.decode(String.self, forKey: .user_id)
            self.email = try container.decode(String.self, forKey: .email)
            self.nick = try container.decode(String.self, forKey: .nick)
            self.profileImage = try container.decodeIfPresent(String.self, forKey: .profileImage) ?? ""
        }
    }

    // LSLPPractice: Network/Model/TokenModel.swift
    struct TokenModel: Decodable, Sendable {
        let accessToken: String
    }

    // LSLPPractice: Network/Model/WithdrawModel.swift
    struct WithdrawModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    // MARK: Router (LSLPPractice/Network/Router.swift, TargetType.swift, HTTPHeader.swift)

    enum Router: Sendable {
        case join(query: JoinQuery)
        case login(query: LoginQuery)
        case refresh
        case withdraw
        case profileCheck

        /// `APIKey.baseURL` + `appendingPathComponent(path)`; the base URL is taken to end in `/v1`.
        var path: String {
            switch self {
            case .join: "/v1/users/join"
            case .login: "/v1/users/login"
            case .refresh: "/v1/auth/refresh"
            case .withdraw: "/v1/users/withdraw"
            case .profileCheck: "/v1/users/me/profile"
            }
        }

        var method: String {
            switch self {
            case .join, .login: "POST"
            case .refresh, .withdraw, .profileCheck: "GET"
            }
        }

        /// `Router.body`: both bodies are written by a `JSONEncoder` with `.convertToSnakeCase` (the keys `nick`,
        /// `email` and `password` stay as they are).
        static var encoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return encoder
        }

        /// `asURLRequest()` with the header of each case; the tokens are what `UserDefaults` holds now (the app
        /// force-unwraps them, so a missing token would crash it: here it throws).
        func request(key: String, accessToken: String?, refreshToken: String?) throws -> TwinRequest {
            switch self {
            case .join(let query):
                return TwinRequest(
                    method, path, headers: [("Content-Type", "application/json"), ("SesacKey", key)],
                    body: try Self.encoder.encode(query))
            case .login(let query):
                return TwinRequest(
                    method, path, headers: [("Content-Type", "application/json"), ("SesacKey", key)],
                    body: try Self.encoder.encode(query))
            case .refresh:
                return TwinRequest(
                    method, path,
                    headers: [
                        ("SesacKey", key), ("Authorization", try stored(accessToken)),
                        ("Refresh", try stored(refreshToken)),
                    ])
            case .withdraw, .profileCheck:
                return TwinRequest(
                    method, path, headers: [("SesacKey", key), ("Authorization", try stored(accessToken))])
            }
        }

        private func stored(_ token: String?) throws -> String {
            guard let token else { throw LSLPPracticeForceUnwrap(path: path) }
            return token
        }
    }

    /// `UserDefaults.standard.string(forKey:)!` found nothing: the app would crash.
    struct LSLPPracticeForceUnwrap: Error, CustomStringConvertible {
        let path: String
        var description: String { "Router.header for \(path) force-unwraps a token UserDefaults does not hold" }
    }

    /// What one `NetworkManager` call ended with: the last answer, and the model when `responseDecodable` succeeded
    /// (`nil` = the `Single` failed).
    struct Answer<Model: Sendable>: Sendable {
        let reply: GatewayClient.Reply
        let model: Model?
    }

    // MARK: The phone (UserDefaults, screens, NetworkManager, AuthInterceptor)

    actor Phone {
        enum Screen: Sendable, Equatable { case login, join, home, profile }

        let client: TwinClient
        /// `UserDefaults.standard` "accessToken" and "refreshToken". They outlive launches and withdrawal.
        private(set) var accessToken: String?
        private(set) var refreshToken: String?
        private(set) var screen: Screen = .login
        /// Whether the tap subscription of each screen's view model is still alive.
        private(set) var loginTapsWork = true
        private(set) var joinTapsWork = true
        private(set) var withdrawTapsWork = true
        /// Every request sent, as "METHOD path status", in order.
        private(set) var wire: [String] = []
        /// Test-side only: the signed-in account, for moving its tokens' clocks.
        private(set) var signedInUserId = ""

        init(client: TwinClient) { self.client = client }

        /// SceneDelegate: every launch starts on a new `LoginViewController` in a navigation controller.
        func launch() {
            screen = .login
            loginTapsWork = true
        }

        /// LoginViewController's 회원가입 button pushes a new `JoinViewController` (a new `JoinViewModel`).
        func openJoin() {
            screen = .join
            joinTapsWork = true
        }

        /// The navigation bar's back button.
        func back() {
            switch screen {
            case .join: screen = .login
            case .profile: screen = .home
            case .login, .home: break
            }
        }

        /// JoinViewModel's `joinValidation`: the join button is enabled only for these.
        static func joinEnabled(_ query: JoinQuery) -> Bool {
            query.nick.count > 0 && query.email.contains("@") && query.password.count > 5
        }

        /// LoginViewModel's `loginValidation`.
        static func loginEnabled(_ query: LoginQuery) -> Bool {
            query.email.count > 0 && query.password.count > 0
        }

        /// JoinViewModel: the tap → `NetworkManager.join`; success pops back to the login screen, a failure ends
        /// the tap subscription. `nil`: nothing was sent.
        func tapJoin(_ query: JoinQuery) async throws -> Answer<JoinModel>? {
            guard screen == .join, Self.joinEnabled(query), joinTapsWork else { return nil }
            let answer = try await plain(.join(query: query), as: JoinModel.self)
            if answer.model != nil { screen = .login } else { joinTapsWork = false }
            return answer
        }

        /// LoginViewModel: the tap → `NetworkManager.login` (which stores both tokens); success makes the home
        /// screen the window's root, a failure ends the tap subscription. `nil`: nothing was sent.
        func tapLogin(_ query: LoginQuery) async throws -> Answer<LoginModel>? {
            guard screen == .login, Self.loginEnabled(query), loginTapsWork else { return nil }
            let answer = try await plain(.login(query: query), as: LoginModel.self)
            if let model = answer.model {
                accessToken = model.accessToken
                refreshToken = model.refreshToken
                signedInUserId = model.user_id
                screen = .home
            } else {
                loginTapsWork = false
            }
            return answer
        }

        /// HomeViewController's person button pushes a new `ProfileViewController`; its `viewDidLoadTrigger` runs
        /// `NetworkManager.profileCheck()` once, through `AuthInterceptor`.
        func openProfile() async throws -> Answer<ProfileModel> {
            screen = .profile
            withdrawTapsWork = true
            return try await intercepted(.profileCheck, as: ProfileModel.self)
        }

        /// ProfileViewModel's 회원탈퇴 tap → `NetworkManager.withdraw()` (no interceptor); success shows a new login
        /// screen, a failure ends the tap subscription. `nil`: nothing was sent.
        func tapWithdraw() async throws -> Answer<WithdrawModel>? {
            guard screen == .profile, withdrawTapsWork else { return nil }
            let answer = try await plain(.withdraw, as: WithdrawModel.self)
            if answer.model != nil {
                screen = .login
                loginTapsWork = true
            } else {
                withdrawTapsWork = false
            }
            return answer
        }

        // MARK: NetworkManager

        private func send(_ route: Router) async throws -> GatewayClient.Reply {
            let request = try route.request(
                key: client.apiKey, accessToken: accessToken, refreshToken: refreshToken)
            let reply = try await client.send(request)
            wire.append("\(request.method) \(request.path) \(reply.status)")
            return reply
        }

        /// `AF.request(urlRequest).responseDecodable(of:)`: no validation, no interceptor.
        private func plain<Model: Decodable & Sendable>(_ route: Router, as type: Model.Type) async throws
            -> Answer<Model>
        {
            let reply = try await send(route)
            return Answer(reply: reply, model: try? client.decode(type, from: reply))
        }

        /// `AF.request(urlRequest, interceptor: AuthInterceptor())`: `adapt` sets `Authorization` to the stored
        /// access token on every attempt (the same value the router's header read); when the answer does not
        /// decode, `retry` refreshes on a 419 and retries, and gives up on anything else ("재시도 X").
        private func intercepted<Model: Decodable & Sendable>(_ route: Router, as type: Model.Type) async throws
            -> Answer<Model>
        {
            let first = try await send(route)
            if let model = try? client.decode(type, from: first) { return Answer(reply: first, model: model) }
            guard first.status == 419 else { return Answer(reply: first, model: nil) }
            // NetworkManager.refresh(): TokenModel; a failure is `.doNotRetryWithError`, the call fails.
            let renewed = try await send(.refresh)
            guard let token = try? client.decode(TokenModel.self, from: renewed) else {
                return Answer(reply: first, model: nil)
            }
            accessToken = token.accessToken
            let retried = try await send(route)
            let model = try? client.decode(type, from: retried)
            if model == nil && retried.status == 419 {
                Issue.record("the retried call is 419 again: AuthInterceptor would refresh again, without a limit")
            }
            return Answer(reply: retried, model: model)
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            let current = try #require(accessToken, "no access token stored")
            accessToken = try await TwinTokens.expired(sameSessionAs: current, userId: signedInUserId)
        }

        /// The refresh token's 14 days pass (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            let current = try #require(accessToken, "no access token stored")
            try await TwinTokens.expireRefreshToken(sessionOf: current)
        }
    }

    /// A fresh install: launch, join (a 6-character password, the screen's minimum), pop back, log in.
    static func joinedAndLoggedIn(_ client: TwinClient) async throws -> (phone: Phone, login: LoginModel) {
        let phone = Phone(client: client)
        let tail = TestEnvironment.unique("")
        let email = "jaehui\(tail)@example.com"
        let password = "sesac1"
        await phone.launch()
        await phone.openJoin()
        let joined = try #require(try await phone.tapJoin(.init(nick: "재희\(tail)", email: email, password: password)))
        _ = try #require(joined.model, "join: \(joined.reply.status) \(joined.reply.text)")
        let login = try #require(try await phone.tapLogin(.init(email: email, password: password)))
        let model = try #require(login.model, "login: \(login.reply.status) \(login.reply.text)")
        return (phone, model)
    }
}

@Suite("LSLPPractice twin")
struct LSLPPracticeTwinTests {
    typealias App = LSLPPracticeTwin

    /// JoinViewModel (the screen's own checks, a nick LSLP refuses, the dead button, a new join screen, the join),
    /// LoginViewModel (a wrong password, the dead button, a relaunch, the login), the home screen's person button
    /// (ProfileModel without a photo), 회원탈퇴 (WithdrawModel), and the same person joining again afterwards.
    @Test func joinLoginProfileAndWithdraw() async throws {
        let client = try TwinClient()
        let phone = App.Phone(client: client)
        let tail = TestEnvironment.unique("")
        let email = "jaehui\(tail)@example.com"
        let nick = "재희\(tail)"
        let password = "sesac1"

        // The login screen after launch; 회원가입 pushes the join screen.
        await phone.launch()
        await phone.openJoin()
        // The join button stays off until the nick is non-empty, the e-mail has "@" and the password 6+ characters.
        #expect(!App.Phone.joinEnabled(.init(nick: nick, email: email, password: "sesac")))
        #expect(!App.Phone.joinEnabled(.init(nick: nick, email: "jaehui", password: password)))
        #expect(!App.Phone.joinEnabled(.init(nick: "", email: email, password: password)))
        #expect(App.Phone.joinEnabled(.init(nick: nick, email: email, password: password)))

        // A nick with a space passes the screen's check; LSLP refuses it (402), and JoinModel cannot decode that.
        let spaced = try #require(
            try await phone.tapJoin(.init(nick: "재희 \(tail)", email: email, password: password)))
        #expect(spaced.reply.status == 402, "\(spaced.reply.text)")
        #expect(spaced.model == nil)
        #expect(!(try client.decode(TwinMessage.self, from: spaced.reply).message.isEmpty))
        let joinStillWorks = await phone.joinTapsWork
        withKnownIssue(
            "LSLPPractice defect: Login/JoinViewModel.swift flatMaps the join tap into NetworkManager.join's Single, so a failed join ends the tap subscription and the join button does nothing until the join screen is opened again"
        ) {
            #expect(joinStillWorks)
        }
        // The nick fixed, the button tapped again: nothing is sent.
        let ignoredJoin = try await phone.tapJoin(.init(nick: nick, email: email, password: password))
        #expect(ignoredJoin == nil)

        // Back to the login screen and into a new join screen: the join goes through and pops to the login screen.
        await phone.back()
        await phone.openJoin()
        let joined = try #require(try await phone.tapJoin(.init(nick: nick, email: email, password: password)))
        let joinModel = try #require(joined.model, "join: \(joined.reply.status) \(joined.reply.text)")
        #expect(joinModel.email == email)
        #expect(joinModel.nick == nick)
        #expect(await phone.screen == .login)

        // A mistyped password: 401, and LoginViewModel's tap subscription ends the same way. The login screen is the
        // navigation root, so only a relaunch brings a working button back.
        let wrong = try #require(try await phone.tapLogin(.init(email: email, password: "sesac2")))
        #expect(wrong.reply.status == 401, "\(wrong.reply.text)")
        #expect(wrong.model == nil)
        let loginStillWorks = await phone.loginTapsWork
        withKnownIssue(
            "LSLPPractice defect: Login/LoginViewModel.swift flatMaps the login tap into NetworkManager.login's Single, so one failed login (a mistyped password) ends the tap subscription and the login button does nothing until the app is launched again"
        ) {
            #expect(loginStillWorks)
        }
        let ignoredLogin = try await phone.tapLogin(.init(email: email, password: password))
        #expect(ignoredLogin == nil)
        #expect(await phone.accessToken == nil)

        // Relaunch: login stores both tokens and the home screen becomes the root.
        await phone.launch()
        let loggedIn = try #require(try await phone.tapLogin(.init(email: email, password: password)))
        let login = try #require(loggedIn.model, "login: \(loggedIn.reply.status) \(loggedIn.reply.text)")
        #expect(login.user_id == joinModel.user_id)
        #expect(login.email == email && login.nick == nick)
        #expect(await phone.accessToken == login.accessToken)
        #expect(await phone.refreshToken == login.refreshToken)
        #expect(await phone.screen == .home)

        // The person button: the profile screen shows nick and email (no photo yet: profileImage defaults to "").
        let opened = try await phone.openProfile()
        let profile = try #require(opened.model, "profile: \(opened.reply.status) \(opened.reply.text)")
        #expect(profile.user_id == login.user_id)
        #expect(profile.email == email)
        #expect(profile.nick == nick)
        #expect(profile.profileImage == "")

        // 회원탈퇴: WithdrawModel, then a new login screen (UserDefaults keeps the old tokens).
        let withdrawTap = try #require(try await phone.tapWithdraw())
        let withdrawn = try #require(
            withdrawTap.model, "withdraw: \(withdrawTap.reply.status) \(withdrawTap.reply.text)")
        #expect(withdrawn.user_id == login.user_id)
        #expect(withdrawn.email == email && withdrawn.nick == nick)
        #expect(await phone.screen == .login)
        #expect(await phone.accessToken == login.accessToken)

        // The same person joins again from the new login screen: the e-mail and the nick are free again, and the
        // new account logs in and sees its own profile.
        await phone.openJoin()
        let rejoined = try #require(try await phone.tapJoin(.init(nick: nick, email: email, password: password)))
        let rejoin = try #require(rejoined.model, "join again: \(rejoined.reply.status) \(rejoined.reply.text)")
        #expect(rejoin.user_id != joinModel.user_id)
        let relogged = try #require(try await phone.tapLogin(.init(email: email, password: password)))
        let relogin = try #require(relogged.model, "login again: \(relogged.reply.status) \(relogged.reply.text)")
        #expect(relogin.user_id == rejoin.user_id)
        let reopened = try await phone.openProfile()
        #expect(reopened.model?.user_id == rejoin.user_id)
        #expect(reopened.model?.email == email)

        #expect(
            await phone.wire == [
                "POST /v1/users/join 402", "POST /v1/users/join 200", "POST /v1/users/login 401",
                "POST /v1/users/login 200", "GET /v1/users/me/profile 200", "GET /v1/users/withdraw 200",
                "POST /v1/users/join 200", "POST /v1/users/login 200", "GET /v1/users/me/profile 200",
            ])
    }

    /// AuthInterceptor on the profile screen (419 → `GET /v1/auth/refresh` with `Authorization` and `Refresh` →
    /// the call retried with the new token); 회원탈퇴 with an expired token (no interceptor); a refresh token that
    /// has expired too (418: the profile stays empty); a relaunch, a login and the withdrawal.
    @Test func expiredTokensAreRefreshedOnlyOnTheProfile() async throws {
        let client = try TwinClient()
        let (phone, login) = try await App.joinedAndLoggedIn(client)

        // The access token has expired when the profile screen opens: one refresh, one retry.
        try await phone.letAccessTokenExpire()
        let expired = await phone.accessToken
        var sent = await phone.wire.count
        let opened = try await phone.openProfile()
        let profile = try #require(opened.model, "profile: \(opened.reply.status) \(opened.reply.text)")
        #expect(profile.user_id == login.user_id)
        #expect(
            await phone.wire.dropFirst(sent).elementsEqual([
                "GET /v1/users/me/profile 419", "GET /v1/auth/refresh 200", "GET /v1/users/me/profile 200",
            ]))
        let renewed = await phone.accessToken
        #expect(renewed != expired)
        #expect(await phone.refreshToken == login.refreshToken, "the app keeps its refresh token")

        // The access token expires again while the profile is open. 회원탈퇴 goes out without the interceptor: the
        // 419 is not refreshed, WithdrawModel cannot decode it, and the button is dead from then on.
        try await phone.letAccessTokenExpire()
        sent = await phone.wire.count
        let tap = try #require(try await phone.tapWithdraw())
        #expect(tap.reply.status == 419, "\(tap.reply.text)")
        #expect(await phone.wire.dropFirst(sent).elementsEqual(["GET /v1/users/withdraw 419"]))
        withKnownIssue(
            "LSLPPractice defect: Network/NetworkManager.swift sends withdraw with AF.request(urlRequest) and no AuthInterceptor, so an expired access token is never refreshed there; the failure also ends ProfileViewModel's withdraw subscription, and 회원탈퇴 does nothing until the profile screen is opened again"
        ) {
            #expect(tap.model != nil)
        }
        let ignored = try await phone.tapWithdraw()
        #expect(ignored == nil)

        // The refresh token's 14 days pass as well. Back home, the profile again: 419, the refresh is refused
        // (418), AuthInterceptor gives up, and the profile screen stays empty. Nothing leads to the login screen.
        await phone.back()
        try await phone.letRefreshTokenExpire()
        sent = await phone.wire.count
        let stale = try await phone.openProfile()
        #expect(stale.model == nil)
        #expect(stale.reply.status == 419)
        #expect(
            await phone.wire.dropFirst(sent).elementsEqual([
                "GET /v1/users/me/profile 419", "GET /v1/auth/refresh 418",
            ]))
        let screen = await phone.screen
        withKnownIssue(
            "LSLPPractice defect: Network/AuthInterceptor.swift answers a failed refresh (418) with doNotRetryWithError and nothing else; Profile/ProfileViewModel.swift drops the error, so the profile stays empty and the user only reaches the login screen by relaunching the app"
        ) {
            #expect(screen == .login)
        }

        // Relaunch: the login screen, a login, the profile without any refresh, and 회원탈퇴.
        await phone.launch()
        let relogged = try #require(
            try await phone.tapLogin(.init(email: login.email, password: "sesac1")))
        let relogin = try #require(relogged.model, "login: \(relogged.reply.status) \(relogged.reply.text)")
        #expect(relogin.user_id == login.user_id)
        sent = await phone.wire.count
        let fresh = try await phone.openProfile()
        #expect(fresh.model?.user_id == login.user_id)
        #expect(fresh.model?.nick == login.nick)
        let withdrawTap = try #require(try await phone.tapWithdraw())
        let withdrawn = try #require(
            withdrawTap.model, "withdraw: \(withdrawTap.reply.status) \(withdrawTap.reply.text)")
        #expect(withdrawn.user_id == login.user_id && withdrawn.email == login.email)
        #expect(
            await phone.wire.dropFirst(sent).elementsEqual([
                "GET /v1/users/me/profile 200", "GET /v1/users/withdraw 200",
            ]))
        #expect(await phone.screen == .login)
    }
}
