import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **LSLP** by Kim-Junhwan (github.com/Kim-Junhwan/LSLP, G0, Nov 2023 – Jan 2024; sources under
/// `LowServiceLevelProject/`): a SwiftUI app that stopped early. It has a login screen, a sign-up screen (email check
/// with "중복 확인", password, nick, phone number, a birthday `DatePicker`), and a tab bar. The first tab
/// (`PostListView`) makes no request: its write screen (`PostWriteView`) has an empty "게시하기" button. The second
/// tab is My Profile (`GET profile/me`: post count, following, followers, nick, the photo). From there you can edit
/// the profile (nick, phone number, birthday, a photo up to 1 MB) or log out, which only deletes the Keychain tokens.
/// The app has no posts, feed, likes, comments, follow, payments or withdraw on the wire.
///
/// The network layer is hand-written on `URLSession`, with no Alamofire. `API/APIs.swift` builds
/// `EndPoint<Response>` values: a path without a leading `/` and without `/v1`, a method, and a `contentType` of
/// `.json` or `.multipart`. The `Authorization` (and `Refresh`) header is read from the Keychain **when the endpoint
/// is made**. `Network/Endpoint.swift` `makeURLRequest` joins `baseURL + "/" + path` and sets the configuration's
/// header `SesacKey` (`Data/APINetworkConfigs.swift`), merged with the endpoint's headers. A JSON body is
/// `JSONEncoder().encode(dto)` with `Content-Type: application/json`. A multipart body re-reads that JSON as a
/// dictionary and hands the values to `Data/Uploader/ImageUploader.swift`, whose hand-made form has a boundary of
/// `UUID().uuidString`, starts with CRLF, has no CRLF after a text value, names the file `profile<boundary>.jpg`
/// (`image/jpeg`) and appends a CRLF after the file bytes. `Network/NetworkService.swift` counts any 2xx as success.
/// `Network/DataTransferService.swift` decodes with a plain `JSONDecoder()`, and on any other status it asks the
/// default handler (`CommonResponseErrorHandler`: 420, 429, 444, 500) and then the endpoint's handler
/// (`Data/ErrorHandler/…`). `TokenErrorHandler` handles a 419: it sends `GET refresh` with the Keychain's
/// `Authorization` and `Refresh`, stores `token` and answers `.retry(endpoint: endpoint)`. That is the *original*
/// endpoint, with the expired token baked in (the renewed copy `copyReq` is built and never used). For `refresh`
/// itself, `AccessTokenRefreshErrorHandler` answers 409 and 418 with `.notRetryNotPass`, so the caller's completion
/// is never called. A 418 also posts `expirationRefreshToken`, which `UserStateViewModel` turns into the
/// "로그인 세션 만료" alert and the login screen. Images (`Presentation/Utils/Common/CustomAsyncImage.swift`) are a
/// plain `GET baseURL/<path>` with `SesacKey` and `Authorization`, with no error handler.
///
/// Mirrored files: `API/APIs.swift`, `Network/Endpoint.swift`, `Network/NetworkService.swift`,
/// `Network/DataTransferService.swift`, `Data/APINetworkConfigs.swift`, `Data/Uploader/ImageUploader.swift`,
/// `Data/Request/*.swift`, `Data/Response/**/*.swift`, `Data/ErrorHandler/**/*.swift`,
/// `Data/Repository/DefaultAuthRepository.swift`, `Data/Repository/DefaultProfileRepository.swift`,
/// `Presentation/Register/RegisterViewModel.swift`, `Presentation/Login/UserStateViewModel.swift`,
/// `Presentation/Profile/UpdateProfile/UpdateProfileViewModel.swift`,
/// `Presentation/Utils/Common/CustomAsyncImage.swift`.
///
/// Departures:
/// - `APIKey.swift` is not in the repository. `baseURL` and `authTestURL` (the base URL of the refresh call) are
///   both the test gateway, and `secretKey` is the stack's API key.
/// - `ImageUploader` walks a Swift `Dictionary`, so the order of the text parts changes from launch to launch. The
///   twin always sends them in the DTO's order (`nick`, `phoneNum`, `birthDay`).
/// - The photo picker sends `jpegData(compressionQuality: 1.0)` of a downsampled picture. The twin sends the 1×1
///   PNG test image, declared `image/jpeg` as the app declares every photo.
/// - The app has no hard-coded `product_id`: nothing it sends carries one.
enum KimJunhwanTwin {
    // MARK: Request DTOs (LowServiceLevelProject/Data/Request/…)

    /// `RegisterRequestDTO.swift`. The key is `phoneNumber`, not LSLP's `phoneNum`. `RegisterViewModel.regist()`
    /// sends the phone field as typed (`""` when left empty) and `birthDay` as `Date.description` of the picker's
    /// date (`"2023-12-20 05:30:00 +0000"`). A `nil` is left out by the synthesized `encode(to:)`.
    struct RegisterRequestDTO: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNumber: String?
        let birthDay: String?
    }

    /// `ValidateEmailRequestDTO.swift`
    struct ValidateEmailRequestDTO: Encodable, Sendable { let email: String }

    /// `LoginRequestDTO.swift`
    struct LoginRequestDTO: Encodable, Sendable {
        let email: String
        let password: String
    }

    /// `UpdateProfileRequestDTO.swift`. `UpdateProfileViewModel` is made with the nick only, so `phoneNum` and
    /// `birthDay` stay `nil` (left out) unless the user types into those fields.
    struct UpdateProfileRequestDTO: Encodable, Sendable {
        let nick: String?
        let phoneNum: String?
        let birthDay: String?
    }

    // MARK: Decodable models (LowServiceLevelProject/Data/Response/… and Data/ErrorHandler/Token/…)

    /// `Authorization/EmptyResponse.swift`: the answer of join and of the email check (any JSON object).
    struct EmptyResponse: Decodable, Sendable {}

    /// `Authorization/LoginResponse.swift`
    struct LoginResponse: Decodable, Sendable {
        let _id: String
        let token: String
        let refreshToken: String
    }

    /// `Token/RefreshAccessTokenResponse.swift`
    struct RefreshAccessTokenResponse: Decodable, Sendable { let token: String }

    /// `Profile/MyProfileResponse.swift`: the answer of `GET` and `PUT profile/me`.
    struct MyProfileResponse: Decodable, Sendable {
        let posts: [String]
        let followers: [FriendResponse]
        let following: [FriendResponse]
        let _id: String
        let email: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
        let profile: String?
    }

    /// `Profile/MyProfileResponse.swift`. `profile` is a required String. The app cannot follow anyone, so its own
    /// members never appear here.
    struct FriendResponse: Decodable, Sendable {
        let _id: String
        let nick: String
        let profile: String
    }

    /// `Data/ErrorHandler/Token/AccessTokenRefreshErrorHandler.swift` (the app's spelling): the error body of 401,
    /// 409, 420 and 429.
    struct ErrorDesctiption: Decodable, Sendable { let message: String }

    // MARK: Endpoints (LowServiceLevelProject/API/APIs.swift + Network/Endpoint.swift)

    static let sesacKeyHeader = "SesacKey"

    /// One `EndPoint` as `APIs.swift` makes it. The tokens are the Keychain's at the moment the endpoint is made,
    /// and every retry of the endpoint carries them unchanged.
    enum EndPoint: Sendable {
        case registerService(RegisterRequestDTO)
        case validateEmail(ValidateEmailRequestDTO)
        case login(LoginRequestDTO)
        case refreshAccessToken(accessToken: String, refreshToken: String)
        case getMyProfile(accessToken: String)
        /// `identifier` is the endpoint's `UUID().uuidString`: the boundary and the file name's tail.
        case updateMyProfile(UpdateProfileRequestDTO, image: Data?, accessToken: String, identifier: String)

        /// `makeURLRequest(networkConfig:)`: `SesacKey` from the configuration, the endpoint's headers, the body.
        func urlRequest(sesacKey: String) throws -> TwinRequest {
            let config = [(KimJunhwanTwin.sesacKeyHeader, sesacKey)]
            switch self {
            case .registerService(let dto):
                return try .json("POST", "/join", dto, headers: config)
            case .validateEmail(let dto):
                return try .json("POST", "/validation/email", dto, headers: config)
            case .login(let dto):
                return try .json("POST", "/login", dto, headers: config)
            case .refreshAccessToken(let access, let refresh):
                return TwinRequest(
                    "GET", "/refresh", headers: config + [("Authorization", access), ("Refresh", refresh)])
            case .getMyProfile(let access):
                return TwinRequest("GET", "/profile/me", headers: config + [("Authorization", access)])
            case .updateMyProfile(let dto, let image, let access, let identifier):
                // `makeBody`: the DTO through JSONEncoder, back through JSONSerialization, values `String(describing:)`.
                let json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(dto)) as? [String: Any]
                let strings = (json ?? [:]).mapValues { String(describing: $0) }
                let fields = ["nick", "phoneNum", "birthDay"].compactMap { key in strings[key].map { (key, $0) } }
                let body = KimJunhwanTwin.imageUploaderBody(
                    identifier: identifier, bodyParameterData: fields, datas: [("profile", image.map { [$0] } ?? [])])
                return TwinRequest(
                    "PUT", "/profile/me",
                    headers: config + [
                        ("Authorization", access), ("Content-Type", "multipart/form-data; boundary=\(identifier)"),
                    ],
                    body: body)
            }
        }
    }

    /// `Data/Uploader/ImageUploader.swift` `createPostBody` + `convertDatas`, byte for byte. Each part opens with
    /// `\r\n--<id>\r\n`, a text value is followed directly by the next part, and a file is followed by an extra
    /// `\r\n` before the closing `\r\n--<id>--\r\n`.
    static func imageUploaderBody(
        identifier: String, bodyParameterData: [(String, String)], datas: [(String, [Data])]
    ) -> Data {
        var body = Data()
        for (key, value) in bodyParameterData {
            body.append(Data("\r\n--\(identifier)\r\n".utf8))
            body.append(Data("Content-Disposition: form-data; name=\"\(key)\"\r\n\r\n".utf8))
            body.append(Data(value.utf8))
        }
        for (key, files) in datas {
            for file in files {
                body.append(Data("\r\n--\(identifier)\r\n".utf8))
                body.append(
                    Data(
                        "Content-Disposition: form-data; name=\"\(key)\"; filename=\"\(key)\(identifier).jpg\"\r\n".utf8
                    ))
                body.append(Data("Content-Type: image/jpeg\r\n\r\n".utf8))
                body.append(file)
                body.append(Data("\r\n".utf8))
            }
        }
        body.append(Data("\r\n--\(identifier)--\r\n".utf8))
        return body
    }

    // MARK: Error handlers (LowServiceLevelProject/Data/ErrorHandler/…)

    /// The endpoint handler a repository passes to `DataTransferService.request(endpoint:endpointResponseHandler:)`.
    enum Handler: Sendable {
        case register, validateEmail, login, token, editProfile, accessTokenRefresh
    }

    /// What `ResponseErrorType.retry` answers.
    enum Reaction: Sendable, Equatable {
        /// `.notRetry`: the completion gets a failure (`decodesMessage`: with `ErrorDesctiption`).
        case notRetry(title: String, decodesMessage: Bool)
        /// `TokenErrorHandler` 419: `GET refresh`, then `.retry(endpoint:maxCount: 1)`.
        case refreshThenRetry
        /// `.notRetryNotPass`: nothing is called back. `loginScreen`: the 418 notification is posted first.
        case notRetryNotPass(loginScreen: Bool)
    }

    /// `DataTransferService.handleStatusCode`: the default handler first, then the endpoint's. `nil` is
    /// `unknownStatusCode`, a failure.
    static func reaction(to status: Int, handler: Handler) -> Reaction? {
        switch status {  // CommonResponseErrorHandler
        case 420, 429: return .notRetry(title: "에러", decodesMessage: true)
        case 444: return .notRetry(title: "에러", decodesMessage: false)
        case 500: return .notRetry(title: "서버 에러", decodesMessage: false)
        default: break
        }
        func token(_ status: Int) -> Reaction? {  // TokenErrorHandler
            switch status {
            case 401: .notRetry(title: "에러", decodesMessage: true)
            case 403: .notRetry(title: "에러", decodesMessage: false)
            case 419: .refreshThenRetry
            default: nil
            }
        }
        switch (handler, status) {
        case (.register, 400), (.validateEmail, 400), (.login, 400):  // AuthorizationCommonErrorHandler
            return .notRetry(title: "인증 실패", decodesMessage: false)
        case (.register, 409): return .notRetry(title: "회원가입 실패", decodesMessage: true)
        case (.validateEmail, 409): return .notRetry(title: "사용할 수 없는 이메일입니다.", decodesMessage: true)
        case (.login, 401): return .notRetry(title: "로그인 실패", decodesMessage: true)
        case (.token, _): return token(status)
        case (.editProfile, _):
            return token(status) ?? (status == 400 ? .notRetry(title: "프로필 수정 실패", decodesMessage: false) : nil)
        case (.accessTokenRefresh, _):
            if let reaction = token(status) { return reaction }
            switch status {
            case 409: return .notRetryNotPass(loginScreen: false)
            case 418: return .notRetryNotPass(loginScreen: true)
            default: return nil
            }
        default: return nil
        }
    }

    // MARK: Session (Keychain + DataTransferService + UserStateViewModel)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        let nick: String
        /// The Keychain (`DefaultTokenRepository`): `accessToken` and `refreshToken`, `nil` when absent.
        private(set) var accessToken: String?
        private(set) var refreshToken: String?
        private(set) var userID = ""
        /// Every `GET refresh` status `TokenErrorHandler` saw, in order.
        private(set) var refreshStatuses: [Int] = []
        /// `UserStateViewModel.refreshTokenExpireAlert` → "확인" → the login screen.
        private(set) var sessionExpiredAlerts = 0

        /// What the repository's completion got: the last answer of the original endpoint, whether the completion
        /// was called at all, and the alert title of a failure.
        struct Delivery: Sendable {
            let reply: GatewayClient.Reply
            let completed: Bool
            var failureTitle: String? = nil
            var stalledBecause: String? = nil
            var succeeded: Bool { completed && (200..<300).contains(reply.status) && failureTitle == nil }
        }

        init(client: TwinClient, email: String, password: String, nick: String) {
            self.client = client
            self.email = email
            self.password = password
            self.nick = nick
        }

        /// A new member on the sign-up screen (nothing is sent yet).
        static func newMember(_ client: TwinClient) -> Session {
            let tail = TestEnvironment.unique("")
            return Session(
                client: client, email: "kimjunhwan\(tail)@example.com", password: "lslp1234", nick: "준환\(tail)")
        }

        /// `DataTransferService.request(endpoint:endpointResponseHandler:)` for an endpoint made once.
        func transfer(_ endpoint: EndPoint, handler: Handler) async throws -> Delivery {
            let request = try endpoint.urlRequest(sesacKey: client.apiKey)
            var reply = try await client.send(request)
            var count = 0
            while !(200..<300).contains(reply.status) {
                guard let reaction = KimJunhwanTwin.reaction(to: reply.status, handler: handler) else {
                    return Delivery(reply: reply, completed: true, failureTitle: "에러 (unknownStatusCode)")
                }
                switch reaction {
                case .notRetry(let title, _):
                    return Delivery(reply: reply, completed: true, failureTitle: title)
                case .notRetryNotPass(let loginScreen):
                    if loginScreen { sessionExpiredAlerts += 1 }
                    return Delivery(reply: reply, completed: false, stalledBecause: "\(reply.status): .notRetryNotPass")
                case .refreshThenRetry:
                    switch try await refreshAccessToken() {
                    case .renewed:
                        // `.retry(endpoint: endpoint, …, maxCount: 1)`: the original endpoint, the old token.
                        guard count < 1 else {
                            return Delivery(reply: reply, completed: true, failureTitle: "토큰 갱신 실패")
                        }
                        reply = try await client.send(request)
                        count += 1
                    case .failed:
                        return Delivery(reply: reply, completed: true, failureTitle: "실패")
                    case .stalled(let reason):
                        return Delivery(reply: reply, completed: false, stalledBecause: reason)
                    }
                }
            }
            return Delivery(reply: reply, completed: true)
        }

        enum RefreshResult: Sendable {
            case renewed
            case failed
            case stalled(String)
        }

        /// `TokenErrorHandler` 419: a new `TokenEndpoints.refreshAccessToken()` (Keychain read now) through a new
        /// `DataTransferService` with `AccessTokenRefreshErrorHandler`.
        private func refreshAccessToken() async throws -> RefreshResult {
            let endpoint = EndPoint.refreshAccessToken(accessToken: accessToken ?? "", refreshToken: refreshToken ?? "")
            let reply = try await client.send(try endpoint.urlRequest(sesacKey: client.apiKey))
            refreshStatuses.append(reply.status)
            if (200..<300).contains(reply.status) {
                guard let renewed = try? client.decode(RefreshAccessTokenResponse.self, from: reply) else {
                    return .failed
                }
                accessToken = renewed.token  // saveTokenAtKeyChain(.accessToken)
                return .renewed
            }
            switch KimJunhwanTwin.reaction(to: reply.status, handler: .accessTokenRefresh) {
            case .notRetryNotPass(let loginScreen):
                if loginScreen { sessionExpiredAlerts += 1 }
                return .stalled("GET refresh answered \(reply.status): .notRetryNotPass, no completion is called")
            case .refreshThenRetry:
                Issue.record("GET refresh answered 419: the app would refresh the refresh call itself")
                return .stalled("refresh 419")
            case .notRetry, nil:
                return .failed
            }
        }

        /// A screen's call that must succeed: completed, 2xx, decoded with the app's type.
        func call<Model: Decodable>(
            _ endpoint: EndPoint, handler: Handler, as type: Model.Type,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Model {
            let delivery = try await transfer(endpoint, handler: handler)
            #expect(
                delivery.succeeded,
                "\(endpoint): \(delivery.reply.status) \(delivery.reply.text) \(delivery.stalledBecause ?? "")",
                sourceLocation: sourceLocation)
            return try client.decode(type, from: delivery.reply)
        }

        // MARK: Screens

        /// RegisterView "중복 확인" (`ValidateEmailResponseErrorHandler`).
        func validateEmail(_ email: String) async throws -> Delivery {
            try await transfer(.validateEmail(.init(email: email)), handler: .validateEmail)
        }

        /// RegisterView "회원가입" (`RegisterViewModel.regist()` → `DefaultAuthRepository.register`).
        func register(nick: String, phone: String, birthDay: Date) async throws -> Delivery {
            let dto = RegisterRequestDTO(
                email: email, password: password, nick: nick, phoneNumber: phone, birthDay: birthDay.description)
            return try await transfer(.registerService(dto), handler: .register)
        }

        /// LoginView "로그인" (`UserStateViewModel.signIn` → `DefaultLoginFlowUseCase.login`): both tokens saved.
        func signIn(email: String? = nil, password: String? = nil) async throws -> Delivery {
            let delivery = try await transfer(
                .login(.init(email: email ?? self.email, password: password ?? self.password)), handler: .login)
            if delivery.succeeded, let login = try? client.decode(LoginResponse.self, from: delivery.reply) {
                accessToken = login.token
                refreshToken = login.refreshToken
                userID = login._id
            }
            return delivery
        }

        /// OptionView "로그아웃": both Keychain items deleted, nothing sent.
        func signOut() {
            accessToken = nil
            refreshToken = nil
        }

        /// ProfileView `viewDidLoad` / `.refreshable`: a new `ProfileEndpoints.getMyProfile()`.
        func myProfileEndpoint() -> EndPoint { .getMyProfile(accessToken: accessToken ?? "") }

        /// UpdateProfileView "확인": a new `ProfileEndpoints.updateMyProfile(request:image:)`.
        func updateProfileEndpoint(nick: String?, phoneNum: String? = nil, birthDay: String? = nil, image: [UInt8]?)
            -> EndPoint
        {
            .updateMyProfile(
                .init(nick: nick, phoneNum: phoneNum, birthDay: birthDay), image: image.map { Data($0) },
                accessToken: accessToken ?? "", identifier: UUID().uuidString)
        }

        /// `CustomAsyncImage.getImage(path:)`: `ImageRequest` sent by `DefaultNetworkService` (no error handler).
        func image(_ path: String) async throws -> GatewayClient.Reply {
            try await client.send(
                TwinRequest(
                    "GET", "/\(path)",
                    headers: [(KimJunhwanTwin.sesacKeyHeader, client.apiKey), ("Authorization", accessToken ?? "")]))
        }

        // MARK: Time passing (test-side only)

        func letAccessTokenExpire() async throws {
            let token = try #require(accessToken, "no access token in the Keychain")
            accessToken = try await TwinTokens.expired(sameSessionAs: token, userId: userID)
        }

        func letRefreshTokenExpire() async throws {
            let token = try #require(accessToken, "no access token in the Keychain")
            try await TwinTokens.expireRefreshToken(sessionOf: token)
        }
    }

    /// Sign-up as the screens do it ("중복 확인", "회원가입" with a phone number and today's date), then login.
    static func signedUpMember(_ client: TwinClient) async throws -> Session {
        let member = Session.newMember(client)
        let checked = try await member.validateEmail(member.email)
        #expect(checked.succeeded, "email check: \(checked.reply.status) \(checked.reply.text)")
        let joined = try await member.register(nick: member.nick, phone: "010-1234-5678", birthDay: Date())
        #expect(joined.succeeded, "join: \(joined.reply.status) \(joined.reply.text)")
        let login = try await member.signIn()
        #expect(login.succeeded, "login: \(login.reply.status) \(login.reply.text)")
        return member
    }
}

@Suite("Kim-Junhwan LSLP twin")
struct KimJunhwanTwinTests {
    typealias App = KimJunhwanTwin

    /// The sign-up screen as a user fills it in. "중복 확인" with the field still empty (400), then with the
    /// address (200). "회원가입" without a nick (400), then complete: `phoneNumber` and the `DatePicker`'s
    /// `Date.description` as `birthDay`. The same address again gives 409 for both the check and the join. Then
    /// the login screen: empty fields (400), a wrong password (401), then the right one. The profile tab shows what was saved. Logout
    /// is local only, and the next login shows the same profile.
    @Test func signUpLoginAndProfileTab() async throws {
        let client = try TwinClient()
        let member = App.Session.newMember(client)

        let empty = try await member.validateEmail("")
        #expect(empty.reply.status == 400 && empty.failureTitle == "인증 실패", "empty email: \(empty.reply.text)")
        let checked = try await member.validateEmail(member.email)
        #expect(checked.succeeded, "email check: \(checked.reply.status) \(checked.reply.text)")
        _ = try client.decode(App.EmptyResponse.self, from: checked.reply)

        let birthDay = Date(timeIntervalSince1970: 946_684_800)  // the picker set to 2000-01-01 00:00 UTC
        let noNick = try await member.register(nick: "", phone: "", birthDay: birthDay)
        #expect(noNick.reply.status == 400 && noNick.failureTitle == "인증 실패", "empty nick: \(noNick.reply.text)")

        let joined = try await member.register(nick: member.nick, phone: "010-2468-1357", birthDay: birthDay)
        #expect(joined.succeeded, "join: \(joined.reply.status) \(joined.reply.text)")
        _ = try client.decode(App.EmptyResponse.self, from: joined.reply)

        let taken = try await member.validateEmail(member.email)
        #expect(taken.reply.status == 409 && taken.failureTitle == "사용할 수 없는 이메일입니다.")
        #expect(try !client.decode(App.ErrorDesctiption.self, from: taken.reply).message.isEmpty)
        let twice = try await member.register(nick: member.nick, phone: "010-2468-1357", birthDay: birthDay)
        #expect(twice.reply.status == 409 && twice.failureTitle == "회원가입 실패", "join again: \(twice.reply.text)")
        #expect(try !client.decode(App.ErrorDesctiption.self, from: twice.reply).message.isEmpty)

        let blank = try await member.signIn(email: "", password: "")
        #expect(blank.reply.status == 400 && blank.failureTitle == "인증 실패", "empty login: \(blank.reply.text)")
        let wrong = try await member.signIn(password: "wrong-password")
        #expect(wrong.reply.status == 401 && wrong.failureTitle == "로그인 실패", "wrong password: \(wrong.reply.text)")
        #expect(try !client.decode(App.ErrorDesctiption.self, from: wrong.reply).message.isEmpty)
        #expect(await member.accessToken == nil, "a failed login stores nothing")

        let login = try await member.signIn()
        #expect(login.succeeded, "login: \(login.reply.status) \(login.reply.text)")
        let tokens = try client.decode(App.LoginResponse.self, from: login.reply)
        #expect(!tokens.token.isEmpty && !tokens.refreshToken.isEmpty)

        // The tab bar: PostListView sends nothing; ProfileView.viewDidLoad reads my profile.
        let me = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(me._id == tokens._id && me.email == member.email && me.nick == member.nick)
        #expect(me.posts.isEmpty && me.followers.isEmpty && me.following.isEmpty && me.profile == nil)
        #expect(me.birthDay == "2000-01-01 00:00:00 +0000", "birthDay is Date.description: \(me.birthDay ?? "nil")")
        withKnownIssue(
            "Kim-Junhwan LSLP defect: Data/Request/RegisterRequestDTO.swift sends the phone number under `phoneNumber`, a key LSLP does not know, so the number typed on the sign-up screen is never saved"
        ) {
            #expect(me.phoneNum == "010-2468-1357")
        }
        #expect(me.phoneNum == nil, "the server ignores `phoneNumber`: \(me.phoneNum ?? "nil")")

        // OptionView "로그아웃" deletes the Keychain tokens only; the next login shows the same profile.
        await member.signOut()
        let again = try await member.signIn()
        #expect(again.succeeded, "second login: \(again.reply.status) \(again.reply.text)")
        let reread = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(reread._id == me._id && reread.nick == me.nick && reread.birthDay == me.birthDay)
    }

    /// UpdateProfileView opened from the profile menu ("프로필 수정"). First edit: a new nick, a phone number, a
    /// birthday and a photo, sent as `ImageUploader` writes the form. The profile tab is pulled to refresh and the
    /// photo loads. Second edit: only a new nick, with no photo, phone or birthday, because the edit screen starts
    /// with those empty. The photo and the other fields stay. Third edit: the nick cleared (400).
    @Test func profileEditWithThePhotoUploader() async throws {
        let client = try TwinClient()
        let member = try await App.signedUpMember(client)
        let me = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)

        let newNick = "\(member.nick)사진"
        let edit = await member.updateProfileEndpoint(
            nick: newNick, phoneNum: "010-9876-5432", birthDay: "1995/07/21", image: TestImages.png)
        let request = try edit.urlRequest(sesacKey: client.apiKey)
        let bodyText = String(decoding: request.body ?? Data(), as: UTF8.self)
        #expect(bodyText.hasPrefix("\r\n--") && bodyText.contains("filename=\"profile"), "the app's own form layout")
        let edited = try await member.call(edit, handler: .editProfile, as: App.MyProfileResponse.self)
        #expect(edited._id == me._id && edited.nick == newNick && edited.email == member.email)
        #expect(edited.phoneNum == "010-9876-5432" && edited.birthDay == "1995/07/21")
        let photoPath = try #require(edited.profile, "the edit answer has no photo")

        // `.refreshable`: a new endpoint; then CustomAsyncImage loads the photo.
        let refreshed = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(refreshed.nick == newNick && refreshed.profile == photoPath)
        let photo = try await member.image(photoPath)
        #expect(photo.status == 200, "\(photoPath): \(photo.status) \(photo.text)")
        // Data/Uploader/ImageUploader.swift writes "\r\n" after the photo and then the closing "\r\n--<id>--", so the
        // form's file part ends with two extra bytes; media drops what follows a PNG's IEND (decision 0047).
        #expect(photo.body == TestImages.png, "the photo's bytes, without the form's line break")

        // A second visit to the edit screen: the view model starts with the nick only.
        let secondNick = "\(member.nick)둘"
        let renamed = try await member.call(
            await member.updateProfileEndpoint(nick: secondNick, image: nil), handler: .editProfile,
            as: App.MyProfileResponse.self)
        #expect(renamed.nick == secondNick && renamed.profile == photoPath, "a text-only edit keeps the photo")
        #expect(renamed.phoneNum == "010-9876-5432" && renamed.birthDay == "1995/07/21", "fields not sent are kept")

        // The nick field cleared with its "x" button, then "확인": EditProfileErrorHandler 400.
        let cleared = try await member.transfer(
            await member.updateProfileEndpoint(nick: "", image: nil), handler: .editProfile)
        #expect(cleared.reply.status == 400 && cleared.failureTitle == "프로필 수정 실패", "\(cleared.reply.text)")
        let after = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(after.nick == secondNick && after.profile == photoPath)
    }

    /// Ten minutes later the profile tab answers 419. `TokenErrorHandler` refreshes (200) and retries the same
    /// endpoint with the expired token (419 again). It refreshes again with the renewed, still valid token (409),
    /// and the completion is never called. A profile edit made with an expired token is lost the same way. Pulling to
    /// refresh builds a new endpoint and works. Once the refresh token has expired, the refresh answers 418, the
    /// "로그인 세션 만료" alert leads to the login screen, and logging in again works.
    @Test func expiredTokensThenTheSessionExpiredAlert() async throws {
        let client = try TwinClient()
        let member = try await App.signedUpMember(client)
        let me = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)

        try await member.letAccessTokenExpire()
        let stalled = try await member.transfer(await member.myProfileEndpoint(), handler: .token)
        let firstRounds = await member.refreshStatuses
        #expect(firstRounds == [200, 409], "refreshes: \(firstRounds)")
        #expect(stalled.reply.status == 419, "the retry still carries the expired token: \(stalled.reply.status)")
        withKnownIssue(
            "Kim-Junhwan LSLP defect: Data/ErrorHandler/Token/TokenErrorHandler.swift renews the token into `copyReq` but retries the original `endpoint`, whose expired token was read when it was made (419 again). The second GET refresh carries the renewed, still valid token and gets 409, which AccessTokenRefreshErrorHandler answers with `.notRetryNotPass`, so the profile never loads"
        ) {
            #expect(stalled.completed && stalled.reply.status == 200)
        }

        // `.refreshable`: a new endpoint with the renewed token from the Keychain.
        let reloaded = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(reloaded._id == me._id && reloaded.nick == me.nick)

        // The edit screen's "확인" after the token expired again: the same two rounds, and the edit is lost.
        try await member.letAccessTokenExpire()
        let lostNick = "\(member.nick)만료"
        let lost = try await member.transfer(
            await member.updateProfileEndpoint(nick: lostNick, image: TestImages.png), handler: .editProfile)
        let editRounds = await member.refreshStatuses
        #expect(editRounds == [200, 409, 200, 409], "refreshes: \(editRounds)")
        #expect(!lost.completed && lost.reply.status == 419)
        let unchanged = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        withKnownIssue(
            "Kim-Junhwan LSLP defect: Data/ErrorHandler/Token/TokenErrorHandler.swift retries the profile upload with the expired token, so an edit made after the access token expired is never saved"
        ) {
            #expect(unchanged.nick == lostNick)
        }
        #expect(unchanged.nick == me.nick && unchanged.profile == nil, "nothing of the lost edit was applied")

        // The refresh token expires too: 419 → GET refresh 418 → "로그인 세션 만료" → login screen.
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let expired = try await member.transfer(await member.myProfileEndpoint(), handler: .token)
        let lastRounds = await member.refreshStatuses
        #expect(lastRounds.last == 418, "refreshes: \(lastRounds)")
        #expect(!expired.completed && expired.reply.status == 419)
        #expect(await member.sessionExpiredAlerts == 1, "the 418 notification shows the alert once")

        let login = try await member.signIn()
        #expect(login.succeeded, "login after the alert: \(login.reply.status) \(login.reply.text)")
        let back = try await member.call(
            await member.myProfileEndpoint(), handler: .token, as: App.MyProfileResponse.self)
        #expect(back._id == me._id)
    }
}
