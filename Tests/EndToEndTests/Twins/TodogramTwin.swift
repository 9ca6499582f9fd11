import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **Bupgram** (github.com/Seungwoo-Seo/LSLPTodogram, G0, Nov 2023 – Jan 2024): a Threads-like
/// feed of "Bups" (a text with `#hashtags` and up to five photos, the first photo's size clamped to 333 × 300 and
/// sent as `content1`/`content2`) under the hard-coded `product_id` `"PersonalTodo"`; a detail screen with the
/// comments; likes (a toggle, shown optimistically); comments; my profile tab (my Bups) and other members'
/// profiles (their Bups, followers, following, follow / unfollow); profile edit (nick, phone, birthday, photo);
/// settings with log-out and withdraw.
///
/// Network layer (`LSLPTodogram/Infrastructure/NetworkManager.swift`, `LSLPTodogram/Data/Network/`): Alamofire
/// with four ways to send, each mirrored by `Session`:
/// - `requestForUser` (login, and the refresh itself): no interceptor, `validate()`.
/// - `request(type:api:)` (email check, join, the composer's / comment sheet's / profile edit's own profile read,
///   comment create): `Interceptor/MyInterceptor.swift` — `adapt` puts the Keychain token in `Authorization` and
///   `SesacKey`; `retry` on **419** calls the refresh, **stores** the new token and retries.
/// - `request(type:api:error:)` (feed, detail, likes, profiles, follow, delete, withdraw): an
///   `AuthenticationInterceptor<SesacAuthenticator>` built per call from the Keychain; on **419** it refreshes and
///   retries with the new token but never writes it to the Keychain (`Interceptor/SesacAuthenticator.swift`).
/// - `upload` (new Bup, profile edit): `AF.upload(multipartFormData:with:)` with no interceptor at all.
/// Answers are decoded with the DTOs of `Data/Network/DataMapping/**` and `Presentation/Scene/Login/Model/
/// LoginResponse.swift`; query parameters come from `PostReadRequest.asDictionary()`, multipart text parts from
/// `PostCreateRequest`/`ProfileUpdateRequest.asDictionary()` (empty values dropped). Images are Kingfisher GETs
/// of `NetworkBase.baseURL + path` with `Authorization` and `SesacKey`
/// (`Presentation/Utility/Extension+/UIImageView+RequestModifier.swift`).
///
/// Inferred, not mirrored from source: the app's `.gitignore` lists `Data/Network/Router/`, so
/// `AccountRouter`, `PostRouter`, `CommentRouter`, `LikeRouter`, `FollowRouter`, `ProfileRouter` and
/// `NetworkBase` are not in the repository. Their call sites fix the cases and arguments; the paths and methods
/// below are the G0 LSLP routes those cases stand for. Further guesses: query parameters through Alamofire's
/// `URLEncoding` (sorted keys), JSON bodies through `JSONEncoder` (nil omitted), the `Refresh` header for the
/// refresh, `GET /withdraw` (G0 apps used GET or POST), the router itself setting `Authorization` from the
/// Keychain (the uploads have no interceptor and must be authorised somehow), and the upload's file parts
/// (`file` / `profile`, `image.jpeg`, `image/jpeg`). The app sends `jpegData(compressionQuality: 0.2)`; the twin
/// sends the 1×1 test PNG under that declared type.
enum TodogramTwin {
    /// `ProductID.personalTodo` (`Data/Network/DataMapping/Post/PostReadRequest.swift`), also hard-coded in
    /// `BupInputViewModel.makeRequest()`.
    static let productID = "PersonalTodo"

    // MARK: - Decodable models (LSLPTodogram: Data/Network/DataMapping/**, Presentation/Scene/Login/Model)

    // Account/EmailValidationResponseDTO.swift
    struct EmailValidationResponseDTO: Decodable, Sendable {
        let message: String
    }

    // Account/JoinDTO.swift
    struct JoinDTO: Decodable, Sendable {
        let _id: String
        let email: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
    }

    // Presentation/Scene/Login/Model/LoginResponse.swift
    struct LoginResponse: Decodable, Sendable {
        let _id: String
        let token: String
        let refreshToken: String
    }

    // Account/RefreshResponse.swift
    struct RefreshResponse: Decodable, Sendable {
        let token: String
    }

    // Account/WithdrawResponse.swift
    struct WithdrawResponse: Decodable, Sendable {
        let _id: String
        let email: String
        let nick: String
    }

    // Follow/FollowResponse.swift (UnFollowResponse.swift is the same declaration)
    struct FollowResponse: Decodable, Sendable {
        private enum CodingKeys: String, CodingKey {
            case user, following
            case status = "following_status"
        }
        let user: String
        let following: String
        let status: Bool
    }

    // Follow/UnFollowResponse.swift
    struct UnFollowResponse: Decodable, Sendable {
        private enum CodingKeys: String, CodingKey {
            case user, following
            case status = "following_status"
        }
        let user: String
        let following: String
        let status: Bool
    }

    // Like/LikeUpdateResponseDTO+Mapping.swift (`toDomain()` reads nil as false)
    struct LikeUpdateResponseDTO: Decodable, Sendable {
        let like_status: Bool?
    }

    // Post/CreatorDTO+Mapping.swift
    struct CreatorDTO: Decodable, Hashable, Sendable {
        let _id: String?
        let nick: String?
        let profile: String?
    }

    // Post/CommentDTO+Mapping.swift
    struct CommentDTO: Decodable, Hashable, Sendable {
        let _id: String?
        let time: String?
        let content: String?
        let creator: CreatorDTO
    }

    /// Post/PostCreateResponse.swift: `content` and `product_id` required, `likes`/`comments` not read.
    struct PostCreateResponse: Decodable, Sendable {
        let image: [String]?
        let hashTags: [String]?
        let _id: String
        let creator: CreatorDTO
        let time: String
        let title: String?
        let content: String
        let product_id: String
    }

    /// Post/PostDTO+Mapping.swift: `content1`/`content2` are the first photo's width and height.
    struct PostDTO: Decodable, Hashable, Sendable {
        private enum CodingKeys: String, CodingKey {
            case likes, image, hashTags, comments
            case _id
            case creator, time, content
            case width = "content1"
            case height = "content2"
            case productID = "product_id"
        }
        let image, hashTags: [String]?
        let _id: String
        let creator: CreatorDTO
        let time: String
        let content: String?
        let width, height: String?
        let productID: String
        let likes: [String]?
        let comments: [CommentDTO]?

        /// `Bup.isIliked` (`Domain/Entities/Bup.swift`): the heart is filled when `likes` holds the Keychain id.
        func isIliked(hostID: String) -> Bool { (likes ?? []).contains(hostID) }
    }

    // Post/PostDeleteResponse.swift
    struct PostDeleteResponse: Decodable, Sendable {
        let _id: String
    }

    // Post/PostReadResponseDTO+Mapping.swift
    struct PostReadResponseDTO: Decodable, Sendable {
        private enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
        let data: [PostDTO]
        let nextCursor: String
    }

    // Profile/FollowerDTO+Mapping.swift
    struct FollowerDTO: Decodable, Hashable, Sendable {
        let _id: String
        let nick: String?
        let profile: String?
    }

    // Profile/FollowingDTO+Mapping.swift
    struct FollowingDTO: Decodable, Hashable, Sendable {
        let _id: String
        let nick: String?
        let profile: String?
    }

    // Profile/OthersProfileReadResponseDTO+Mapping.swift
    struct OthersProfileReadResponseDTO: Decodable, Sendable {
        let posts: [String]?
        let followers: [FollowerDTO]?
        let following: [FollowingDTO]?
        let _id: String
        let nick: String
        let profile: String?
    }

    /// Profile/ProfileResponseDTO+Mapping.swift: `email` and `posts` required (also the profile edit's answer).
    struct ProfileResponseDTO: Decodable, Sendable {
        private enum CodingKeys: String, CodingKey {
            case id = "_id"
            case nick, email, posts, followers, following
            case profileImageString = "profile"
            case phoneNum, birthDay
        }
        let id: String
        let nick: String
        let email: String
        let posts: [String]
        let followers: [FollowerDTO]?
        let following: [FollowingDTO]?
        let profileImageString: String?
        let phoneNum: String?
        let birthDay: String?
    }

    // MARK: - Request values (Data/Network/DataMapping/Post, Profile)

    /// Post/PostReadRequest.swift: `next` left out on the first page, `limit` 5.
    struct PostReadRequest: Sendable {
        let next: String?
        let limit: Int
        let product_id: String

        init(next: String?, limit: Int = 5, product_id: String = TodogramTwin.productID) {
            self.next = next
            self.limit = limit
            self.product_id = product_id
        }

        func asDictionary() -> [String: String] {
            if let next {
                return ["next": next, "limit": "\(limit)", "product_id": product_id]
            }
            return ["limit": "\(limit)", "product_id": product_id]
        }
    }

    /// Post/PostCreateRequest.swift: width and height as `"\(CGFloat)"`, nil and empty values dropped.
    struct PostCreateRequest: Sendable {
        let content: String?
        let files: [[UInt8]]?
        let product_id: String
        let width: String?
        let height: String?

        init(content: String?, files: [[UInt8]]?, product_id: String, width: CGFloat?, height: CGFloat?) {
            self.content = content
            self.files = files
            self.product_id = product_id
            self.width = width.map { "\($0)" }
            self.height = height.map { "\($0)" }
        }

        func asDictionary() -> [String: [UInt8]] {
            var result: [String: [UInt8]] = [:]
            let values: [String: String?] = [
                "content": content, "product_id": product_id, "content1": width, "content2": height,
            ]
            for (key, value) in values {
                if let value, !value.isEmpty { result[key] = Array(value.utf8) }
            }
            return result
        }
    }

    /// Profile/ProfileUpdateRequest.swift.
    struct ProfileUpdateRequest: Sendable {
        let nick: String?
        let phoneNum: String?
        let birthDay: String?
        let files: [[UInt8]]?

        func asDictionary() -> [String: [UInt8]] {
            var result: [String: [UInt8]] = [:]
            let values: [String: String?] = ["nick": nick, "phoneNum": phoneNum, "birthDay": birthDay]
            for (key, value) in values {
                if let value, !value.isEmpty { result[key] = Array(value.utf8) }
            }
            return result
        }
    }

    /// `BupInputViewModel`: the first picked photo's size, clamped to 333 × 300.
    static func clampedSize(width: CGFloat, height: CGFloat) -> (CGFloat, CGFloat) {
        (width > 333 ? 333 : width, height > 300 ? 300 : height)
    }

    // MARK: - Routers (inferred: Data/Network/Router/*.swift is git-ignored; see the type's comment)

    struct JoinBody: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
    }

    enum Router: Sendable {
        // AccountRouter
        case emailChek(email: String)
        case join(email: String, password: String, nick: String, phoneNum: String?, birthDay: String?)
        case login(email: String, password: String)
        case refresh(refreshToken: String)
        case withdraw
        // PostRouter
        case create(body: PostCreateRequest)
        case read(parameters: PostReadRequest)
        case singleRead(postId: String)
        case userRead(id: String, parameters: PostReadRequest)
        case delete(id: String)
        // CommentRouter
        case commentCreate(id: String, content: String)
        // LikeRouter
        case likeUpdate(id: String)
        // FollowRouter
        case follow(id: String)
        case unfollow(id: String)
        // ProfileRouter
        case profileRead
        case others(id: String)
        case profileUpdate(body: ProfileUpdateRequest)

        var method: String {
            switch self {
            case .emailChek, .join, .login, .create, .commentCreate, .likeUpdate, .follow: return "POST"
            case .refresh, .withdraw, .read, .singleRead, .userRead, .profileRead, .others: return "GET"
            case .delete, .unfollow: return "DELETE"
            case .profileUpdate: return "PUT"
            }
        }

        var path: String {
            switch self {
            case .emailChek: return "/validation/email"
            case .join: return "/join"
            case .login: return "/login"
            case .refresh: return "/refresh"
            case .withdraw: return "/withdraw"
            case .create, .read: return "/post"
            case .singleRead(let id), .delete(let id): return "/post/\(id)"
            case .userRead(let id, _): return "/post/user/\(id)"
            case .commentCreate(let id, _): return "/post/\(id)/comment"
            case .likeUpdate(let id): return "/post/like/\(id)"
            case .follow(let id), .unfollow(let id): return "/follow/\(id)"
            case .profileRead, .profileUpdate: return "/profile/me"
            case .others(let id): return "/profile/\(id)"
            }
        }

        /// The request as the router builds it; `keychainToken` is what it reads for `Authorization`.
        func asURLRequest(keychainToken: String?, key: String) throws -> TwinRequest {
            var headers = [("SesacKey", key)]
            switch self {
            case .emailChek, .join, .login: break
            case .refresh(let refreshToken):
                headers += [("Authorization", keychainToken ?? ""), ("Refresh", refreshToken)]
            default:
                headers.append(("Authorization", keychainToken ?? ""))
            }
            var request = TwinRequest(method, path, headers: headers)
            switch self {
            case .emailChek(let email):
                request = try .json(method, path, ["email": email], headers: headers)
            case .join(let email, let password, let nick, let phoneNum, let birthDay):
                let body = JoinBody(
                    email: email, password: password, nick: nick, phoneNum: phoneNum, birthDay: birthDay)
                request = try .json(method, path, body, headers: headers)
            case .login(let email, let password):
                request = try .json(method, path, ["email": email, "password": password], headers: headers)
            case .commentCreate(_, let content):
                request = try .json(method, path, ["content": content], headers: headers)
            case .read(let parameters), .userRead(_, let parameters):
                request.query = TwinQuery.alamofire(parameters.asDictionary().map { ($0.key, $0.value) })
            case .create(let body):
                var form = TwinMultipart()
                for (name, data) in body.asDictionary() { form.text(name, String(decoding: data, as: UTF8.self)) }
                for image in body.files ?? [] {
                    form.file("file", filename: "image.jpeg", mimeType: "image/jpeg", bytes: image)
                }
                request = .multipart(method, path, form, headers: headers)
            case .profileUpdate(let body):
                var form = TwinMultipart()
                for (name, data) in body.asDictionary() { form.text(name, String(decoding: data, as: UTF8.self)) }
                for image in body.files ?? [] {
                    form.file("profile", filename: "image.jpeg", mimeType: "image/jpeg", bytes: image)
                }
                request = .multipart(method, path, form, headers: headers)
            default: break
            }
            return request
        }
    }

    /// What a view model gets: the decoded DTO, a status that failed `validate`, an answer the DTO cannot decode
    /// (`responseDecodable` fails; every screen `catch`es it into nothing), or a refresh that failed inside the
    /// authenticator (`requestRetryFailed` → `NetworkError.refresh`).
    enum Outcome<T: Sendable>: Sendable {
        case success(T)
        case failure(status: Int, body: String)
        case undecodable(status: Int, body: [UInt8], error: String)
        case refreshFailed(status: Int)

        var value: T? {
            if case .success(let value) = self { return value }
            return nil
        }

        var status: Int? {
            switch self {
            case .failure(let status, _), .undecodable(let status, _, _), .refreshFailed(let status): return status
            case .success: return nil
            }
        }
    }

    struct StepFailed: Error, CustomStringConvertible {
        let step: String
        var description: String { "Todogram step failed: \(step)" }
    }

    // MARK: - NetworkManager + interceptors + KeychainManager

    actor Session {
        let client: TwinClient
        // KeychainManager (KeychainKey.id, .token, .refresh)
        private(set) var id: String?
        private(set) var token: String?
        private(set) var refresh: String?
        // Test-side bookkeeping.
        private(set) var email = ""
        private(set) var password = ""
        /// Every request on the wire, as `"METHOD /path status"`.
        private(set) var sent: [String] = []
        private(set) var refreshStatuses: [Int] = []
        /// Times the "로그인 화면으로" alert put `LoginViewController` up (`BaseViewController.windowReset()`).
        private(set) var loginScreens = 0

        init(client: TwinClient) {
            self.client = client
        }

        var hostID: String { id ?? "" }

        private func wire(_ request: TwinRequest) async throws -> GatewayClient.Reply {
            let reply = try await client.send(request)
            sent.append("\(request.method) \(request.path) \(reply.status)")
            return reply
        }

        private func outcome<T: Decodable & Sendable>(_ reply: GatewayClient.Reply, _ type: T.Type) -> Outcome<T> {
            guard (200..<300).contains(reply.status) else { return .failure(status: reply.status, body: reply.text) }
            do {
                return .success(try JSONDecoder().decode(type, from: Data(reply.body)))
            } catch {
                return .undecodable(status: reply.status, body: reply.body, error: "\(error)")
            }
        }

        private func build(_ route: Router) throws -> TwinRequest {
            try route.asURLRequest(keychainToken: token, key: client.apiKey)
        }

        /// `NetworkManager.requestForUser`: `AF.request(api).validate()`, no interceptor.
        func requestForUser<T: Decodable & Sendable>(_ type: T.Type, _ route: Router) async throws -> Outcome<T> {
            outcome(try await wire(try build(route)), type)
        }

        /// `MyInterceptor.adapt`: with a Keychain token, `Authorization` and `SesacKey` are set (replaced).
        private func myAdapt(_ request: TwinRequest) -> TwinRequest {
            guard let token else { return request }
            var adapted = request
            adapted.headers =
                adapted.headers.filter { !["authorization", "sesackey"].contains($0.0.lowercased()) }
                + [("Authorization", token), ("SesacKey", client.apiKey)]
            return adapted
        }

        /// `NetworkManager.request(type:api:)` with `MyInterceptor`: on 419 `AF.request(AccountRouter.refresh(…))
        /// .validate()` → the token is written to the Keychain → `.retry` (adapted again).
        func requestWithMyInterceptor<T: Decodable & Sendable>(_ type: T.Type, _ route: Router) async throws
            -> Outcome<T>
        {
            let request = try build(route)
            let first = try await wire(myAdapt(request))
            guard first.status == 419 else { return outcome(first, type) }
            let renewal = try await wire(try build(.refresh(refreshToken: refresh ?? "")))
            refreshStatuses.append(renewal.status)
            guard case .success(let renewed) = outcome(renewal, RefreshResponse.self) else {
                return outcome(first, type)
            }
            token = renewed.token  // KeychainManager.create(key: .token, …)
            return outcome(try await wire(myAdapt(request)), type)
        }

        /// `NetworkManager.request(type:api:error:)`: a fresh `SesacAuthenticationCredential` from the Keychain;
        /// `apply` sets `Authorization` (`.authorization(token)`, the bare token) and `SesacKey`; a 419 sent with
        /// that credential makes `refresh` call `requestForUser(AccountRouter.refresh(refreshToken:))` and retry
        /// with the new credential, which lives only in this call's interceptor. A failed refresh is
        /// `requestRetryFailed` → `NetworkError.refresh`; the screen's alert leads to the login screen.
        func request<T: Decodable & Sendable>(_ type: T.Type, _ route: Router) async throws -> Outcome<T> {
            let request = try build(route)
            var credential = (accessToken: token ?? "", refreshToken: refresh ?? "")
            func apply(_ accessToken: String) -> TwinRequest {
                var applied = request
                applied.headers =
                    applied.headers.filter { !["authorization", "sesackey"].contains($0.0.lowercased()) }
                    + [("Authorization", accessToken), ("SesacKey", client.apiKey)]
                return applied
            }
            let first = try await wire(apply(credential.accessToken))
            guard first.status == 419 else { return outcome(first, type) }
            let renewal = try await wire(try build(.refresh(refreshToken: credential.refreshToken)))
            refreshStatuses.append(renewal.status)
            guard case .success(let renewed) = outcome(renewal, RefreshResponse.self) else {
                loginScreens += 1
                return .refreshFailed(status: renewal.status)
            }
            credential.accessToken = renewed.token
            return outcome(try await wire(apply(credential.accessToken)), type)
        }

        /// `NetworkManager.upload`: `AF.upload(multipartFormData: api.multipartFormData, with: api).validate()`, no
        /// interceptor: what the router put in the headers is sent, a 419 is final.
        func upload<T: Decodable & Sendable>(_ type: T.Type, _ route: Router) async throws -> Outcome<T> {
            outcome(try await wire(try build(route)), type)
        }

        /// `UIImageView.requestModifier(with:)`: `NetworkBase.baseURL + path` with the Keychain token.
        func image(_ path: String) async throws -> GatewayClient.Reply {
            try await wire(
                TwinRequest("GET", "/" + path, headers: [("Authorization", token ?? ""), ("SesacKey", client.apiKey)]))
        }

        // MARK: Screens

        /// EmailViewController "중복 확인" → PasswordViewController → UserDetailViewController "가입하기"
        /// (`windowReset` to the login screen fires on the tap; the join answer is only printed).
        func signUp(email: String, password: String, nick: String, phoneNum: String?, birthDay: String?)
            async throws -> JoinDTO
        {
            let check = try await requestWithMyInterceptor(
                EmailValidationResponseDTO.self, .emailChek(email: email))
            #expect(check.value?.message.isEmpty == false, "email check: \(check)")
            let joined = try require(
                try await requestWithMyInterceptor(
                    JoinDTO.self,
                    .join(email: email, password: password, nick: nick, phoneNum: phoneNum, birthDay: birthDay)),
                "join")
            self.email = email
            self.password = password
            return joined
        }

        /// LoginViewController: `requestForUser(LoginResponse)`; `_id`, `token`, `refreshToken` into the Keychain.
        func login() async throws -> LoginResponse {
            let response = try require(
                try await requestForUser(LoginResponse.self, .login(email: email, password: password)), "login")
            id = response._id
            token = response.token
            refresh = response.refreshToken
            return response
        }

        /// SettingViewModel "로그아웃" / after "회원탈퇴": the three Keychain items deleted.
        func clearKeychain() {
            id = nil
            token = nil
            refresh = nil
        }

        func require<T: Sendable>(
            _ outcome: Outcome<T>, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
        )
            throws -> T
        {
            if case .success(let value) = outcome { return value }
            Issue.record("\(step): \(outcome)", sourceLocation: sourceLocation)
            throw StepFailed(step: step)
        }

        /// `request(type:api:error:)` that must give a value.
        func call<T: Decodable & Sendable>(
            _ type: T.Type, _ route: Router, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> T {
            try require(try await request(type, route), step, sourceLocation: sourceLocation)
        }

        // MARK: Time passing (test-side only)

        /// The Keychain's access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            let current = try #require(token, "no token in the Keychain")
            token = try await TwinTokens.expired(sameSessionAs: current, userId: id ?? "")
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: token ?? "")
        }
    }

    // MARK: - Journeys' building blocks

    /// A new member through the three join pages and the login screen. The app's rules: nick
    /// `^[a-zA-Z0-9가-힣_]{2,20}$`, password 8–50 with a letter, a digit and a symbol, phone `01…`, birthday
    /// `yyyy년 MM월 dd일` — phone and birthday may be left empty (then nil, left out of the body).
    static func newMember(_ client: TwinClient, phoneNum: String? = nil, birthDay: String? = nil) async throws -> (
        Session, LoginResponse, nick: String
    ) {
        let session = Session(client: client)
        let nick = TestEnvironment.unique("bup")
        let joined = try await session.signUp(
            email: "\(nick)@todogram.example.com", password: "bup!2024pass", nick: nick, phoneNum: phoneNum,
            birthDay: birthDay)
        // JoinDTO's optional phoneNum/birthDay: the G0 join answers `{_id, email, nick}`; the app only prints it.
        #expect(joined.nick == nick && joined.email == "\(nick)@todogram.example.com")
        let login = try await session.login()
        #expect(login._id == joined._id)
        return (session, login, nick)
    }

    /// BupInputViewController: opening it reads my profile (`request(type:api:)`, MyInterceptor); "게시" uploads
    /// `makeRequest()`. With photos the first one's clamped size goes along (the test PNG is 1 × 1).
    static func openComposer(_ session: Session) async throws -> ProfileResponseDTO {
        try await session.require(
            try await session.requestWithMyInterceptor(ProfileResponseDTO.self, .profileRead), "composer: my profile")
    }

    static func bupRequest(_ text: String?, photos: Int = 0) -> PostCreateRequest {
        let files = photos > 0 ? Array(repeating: TestImages.png, count: photos) : nil
        let size: (CGFloat, CGFloat)? = photos > 0 ? clampedSize(width: 1, height: 1) : nil
        return PostCreateRequest(
            content: text, files: files, product_id: productID, width: size?.0, height: size?.1)
    }

    static func postBup(_ session: Session, _ text: String?, photos: Int = 0) async throws -> PostCreateResponse {
        _ = try await openComposer(session)
        let created = try await session.require(
            try await session.upload(PostCreateResponse.self, .create(body: bupRequest(text, photos: photos))),
            "post a Bup")
        let host = await session.hostID
        #expect(created.product_id == productID && created.creator._id == host)
        return created
    }

    /// BupNewsfeedViewModel: the first page (no `next`), then, at the last row, `nextParameters` while its `next`
    /// is not "0". The page cap only guards against a cursor loop.
    static func scrollFeed(_ session: Session) async throws -> [PostDTO] {
        try await scroll(session, "feed") { .read(parameters: $0) }
    }

    /// OthersProfileViewModel (and the first page of ProfileViewModel): `userRead` with the same parameters.
    static func scrollUser(_ session: Session, _ userID: String) async throws -> [PostDTO] {
        try await scroll(session, "user's Bups") { .userRead(id: userID, parameters: $0) }
    }

    private static func scroll(_ session: Session, _ name: String, _ route: (PostReadRequest) -> Router)
        async throws -> [PostDTO]
    {
        var page = try await session.call(PostReadResponseDTO.self, route(PostReadRequest(next: nil)), "\(name) 1")
        var rows = page.data
        var pages = 1
        while page.nextCursor != "0" {
            #expect(page.data.count == 5, "a page before the end is full")
            page = try await session.call(
                PostReadResponseDTO.self, route(PostReadRequest(next: page.nextCursor)), "\(name) \(pages + 1)")
            rows += page.data
            pages += 1
            if pages >= 1_000 {
                Issue.record("\(name) never reached next_cursor \"0\"")
                break
            }
        }
        let ids = rows.map(\._id)
        #expect(Set(ids).count == ids.count, "\(name): no Bup repeated across pages")
        // Newest first, checked per member: each journey's members post one after another, while Bups of
        // concurrent journeys may be listed a millisecond out of `time` order (the list follows insertion order).
        let byCreator = Dictionary(grouping: rows) { $0.creator._id ?? "" }
        let inversions = byCreator.values.flatMap { own in
            zip(own, own.dropFirst()).filter { $0.time < $1.time }.map { "\($0._id) \($0.time) < \($1._id) \($1.time)" }
        }
        #expect(inversions.isEmpty, "\(name): newest first: \(inversions)")
        #expect(rows.allSatisfy { $0.productID == productID })
        return rows
    }
}

/// The `_id` of an answer the app's DTO could not decode, read loosely so the journey can go on.
private struct TodogramLooseID: Decodable {
    let _id: String
}

@Suite("Todogram twin")
struct TodogramTwinTests {
    typealias Twin = TodogramTwin

    /// Join (email check free, then taken) → login (wrong password 401) → the first two tabs → Bups with photos,
    /// text only, photo only → the photo loads → the feed scrolled to the end → detail → delete from "…" → gone.
    @Test func signUpPostScrollAndDelete() async throws {
        let client = try TwinClient()
        let (author, login, nick) = try await Twin.newMember(client, phoneNum: "01012345678", birthDay: "1999년 03월 15일")

        // The email check of a taken address: 409, "중복된 이메읿입니다." (EmailError.duplication).
        let taken = try await author.requestWithMyInterceptor(
            Twin.EmailValidationResponseDTO.self, .emailChek(email: "\(nick)@todogram.example.com"))
        #expect(taken.status == 409)
        // A wrong password on the login screen: 401, LoginError.계정_불일치.
        let wrong = try await author.requestForUser(
            Twin.LoginResponse.self, .login(email: "\(nick)@todogram.example.com", password: "wrong!2024pass"))
        #expect(wrong.status == 401)

        // The tab bar: the news feed, and the profile tab (my profile, then my Bups through userRead).
        _ = try await author.call(Twin.PostReadResponseDTO.self, .read(parameters: .init(next: nil)), "feed")
        let me = try await author.call(Twin.ProfileResponseDTO.self, .profileRead, "profile tab")
        #expect(me.id == login._id && me.nick == nick && me.email == "\(nick)@todogram.example.com")
        #expect(me.phoneNum == "01012345678" && me.birthDay == "1999년 03월 15일" && me.posts.isEmpty)
        let mine = try await author.call(
            Twin.PostReadResponseDTO.self, .userRead(id: me.id, parameters: .init(next: nil)), "profile tab Bups")
        #expect(mine.data.isEmpty && mine.nextCursor == "0")

        // A Bup with two photos: content1/content2 carry the first photo's clamped size.
        let withPhotos = try await Twin.postBup(author, "#오운완 오늘도 불태웠다 🔥", photos: 2)
        #expect(withPhotos.content == "#오운완 오늘도 불태웠다 🔥" && withPhotos.hashTags == ["오운완"])
        #expect(withPhotos.image?.count == 2 && withPhotos.creator.nick == nick && withPhotos.title == nil)
        let photo = try await author.image(try #require(withPhotos.image?.first))
        #expect(photo.status == 200 && photo.body == TestImages.png)

        // Text-only Bups (no photo: no content1/content2, no file part).
        var bups = [withPhotos._id]
        for index in 1...5 {
            bups.append(try await Twin.postBup(author, "Bup \(index): 작은 목표 하나 달성")._id)
        }

        // A photo-only Bup (nothing typed: `content` is nil and left out of the form). It is created, but the
        // answer has no `content`, and PostCreateResponse requires it.
        _ = try await Twin.openComposer(author)
        let photoOnly = try await author.upload(
            Twin.PostCreateResponse.self, .create(body: Twin.bupRequest(nil, photos: 1)))
        #expect(photoOnly.status == nil || photoOnly.status == 200, "the upload itself: \(photoOnly)")
        withKnownIssue(
            "Todogram defect: Data/Network/DataMapping/Post/PostCreateResponse.swift declares `content: String`, so a Bup posted with only a photo (no content part) is saved but its answer does not decode: postingDone never fires and the composer stays open"
        ) {
            #expect(photoOnly.value != nil)
        }
        var photoOnlyID: String?
        if case .undecodable(_, let body, _) = photoOnly {
            photoOnlyID = try? JSONDecoder().decode(TodogramLooseID.self, from: Data(body))._id
        } else if let value = photoOnly.value {
            photoOnlyID = value._id
        }
        let photoOnlyPost = try #require(photoOnlyID, "the photo-only Bup's id")

        // The feed to the end (5 a page): every Bup once, newest first; PostDTO reads the photo-only one.
        let feed = try await Twin.scrollFeed(author)
        let feedIDs = feed.map(\._id)
        #expect(Set(bups + [photoOnlyPost]).isSubset(of: Set(feedIDs)))
        let positions = (bups + [photoOnlyPost]).reversed().compactMap { feedIDs.firstIndex(of: $0) }
        #expect(positions == positions.sorted(), "my Bups newest first")
        let shownPhotoOnly = try #require(feed.first { $0._id == photoOnlyPost })
        #expect(shownPhotoOnly.content == nil && shownPhotoOnly.image?.count == 1)
        #expect(shownPhotoOnly.width == "1.0" && shownPhotoOnly.height == "1.0")
        let shownPhotos = try #require(feed.first { $0._id == withPhotos._id })
        #expect(shownPhotos.width == "1.0" && shownPhotos.height == "1.0" && shownPhotos.image == withPhotos.image)
        #expect(feed.first { $0._id == bups[1] }?.width == nil)

        // Detail (BupDetailViewModel: PostRouter.singleRead).
        let detail = try await author.call(Twin.PostDTO.self, .singleRead(postId: withPhotos._id), "detail")
        #expect(detail._id == withPhotos._id && detail.comments?.isEmpty != false && detail.likes?.isEmpty != false)

        // "…" → "삭제하기" (EllipsisViewModel) on my own Bup; the row is removed; the feed no longer has it.
        let deleted = try await author.call(Twin.PostDeleteResponse.self, .delete(id: bups[2]), "delete")
        #expect(deleted._id == bups[2])
        let after = try await Twin.scrollFeed(author)
        #expect(!after.contains { $0._id == bups[2] })
        let meAfter = try await author.call(Twin.ProfileResponseDTO.self, .profileRead, "profile after delete")
        #expect(!meAfter.posts.contains(bups[2]) && meAfter.posts.count == 6)
    }

    /// A reader likes and comments; opens the author's profile (Bups paged through userRead), follows and
    /// unfollows; the author's own profile tab pages past the first page; the author edits the profile and the
    /// reader sees the new nick and photo.
    @Test func likesCommentsProfilesAndFollow() async throws {
        let client = try TwinClient()
        let (reader, readerLogin, readerNick) = try await Twin.newMember(client)
        // Older than all of the author's Bups, so the feed after any of their cursors holds a Bup not theirs.
        let readerBup = try await Twin.postBup(reader, "#독서 오늘 30쪽 읽기")
        #expect(readerBup.creator._id == readerLogin._id)
        let (author, authorLogin, _) = try await Twin.newMember(client, birthDay: "2000년 01월 01일")
        var authorBups: [String] = []
        for index in 1...6 {
            authorBups.append(try await Twin.postBup(author, "#러닝 \(index)km 달성", photos: index == 6 ? 1 : 0)._id)
        }
        let newest = try #require(authorBups.last)

        // The reader's feed: the heart, then unheart (LikeRouter.update is a toggle).
        let feed = try await Twin.scrollFeed(reader)
        #expect(feed.first { $0._id == newest }?.isIliked(hostID: readerLogin._id) == false)
        let like = try await reader.call(Twin.LikeUpdateResponseDTO.self, .likeUpdate(id: newest), "like")
        #expect(like.like_status ?? false)
        let liked = try await reader.call(Twin.PostDTO.self, .singleRead(postId: newest), "detail after like")
        #expect(liked.isIliked(hostID: readerLogin._id) && liked.likes?.count == 1)
        let unlike = try await reader.call(Twin.LikeUpdateResponseDTO.self, .likeUpdate(id: newest), "unlike")
        #expect(!(unlike.like_status ?? false))

        // The comment sheet: my profile (MyInterceptor), then CommentRouter.create; the detail lists it.
        _ = try await reader.requestWithMyInterceptor(Twin.ProfileResponseDTO.self, .profileRead)
        let comment = try await reader.require(
            try await reader.requestWithMyInterceptor(
                Twin.CommentDTO.self, .commentCreate(id: newest, content: "멋져요! 내일도 같이 달려요 🏃")),
            "comment")
        #expect(comment.content == "멋져요! 내일도 같이 달려요 🏃" && comment.creator._id == readerLogin._id)
        #expect(comment.creator.nick == readerNick && comment._id != nil && comment.time != nil)
        let commented = try await reader.call(Twin.PostDTO.self, .singleRead(postId: newest), "detail with comment")
        #expect(commented.comments?.map(\._id) == [comment._id])

        // The author's profile (OthersProfileViewModel): profile, then the Bups paged with userRead.
        let others = try await reader.call(
            Twin.OthersProfileReadResponseDTO.self, .others(id: authorLogin._id), "other")
        #expect(others._id == authorLogin._id && Set(others.posts ?? []) == Set(authorBups))
        #expect(others.followers?.contains { $0._id == readerLogin._id } != true, "the button shows 팔로우")
        let theirs = try await Twin.scrollUser(reader, authorLogin._id)
        #expect(theirs.map(\._id) == Array(authorBups.reversed()))

        // Follow, the button and count from the profile read again; the reader's own following list.
        let follow = try await reader.call(Twin.FollowResponse.self, .follow(id: authorLogin._id), "follow")
        #expect(follow.user == readerLogin._id && follow.following == authorLogin._id && follow.status)
        let othersAfter = try await reader.call(
            Twin.OthersProfileReadResponseDTO.self, .others(id: authorLogin._id), "other after follow")
        #expect(othersAfter.followers?.map(\._id) == [readerLogin._id], "팔로잉, 팔로워 1명")
        let readerMe = try await reader.call(Twin.ProfileResponseDTO.self, .profileRead, "reader's profile tab")
        #expect(readerMe.following?.map(\._id) == [authorLogin._id])
        // The author's tab: "팔로워 1명" lists the reader; the reader's profile offers "맞팔로우 하기"
        // (`OthersProfile.isFollowingToMe`: their `following` holds my Keychain id).
        let authorTab = try await author.call(Twin.ProfileResponseDTO.self, .profileRead, "author's followers")
        #expect(authorTab.followers?.map(\._id) == [readerLogin._id] && authorTab.followers?.first?.nick == readerNick)
        let readerSeen = try await author.call(
            Twin.OthersProfileReadResponseDTO.self, .others(id: readerLogin._id), "the follower's profile")
        #expect(readerSeen.following?.contains { $0._id == authorLogin._id } == true, "맞팔로우 하기")
        #expect(readerSeen.followers?.isEmpty != false && readerSeen.posts == [readerBup._id])
        let unfollow = try await reader.call(Twin.UnFollowResponse.self, .unfollow(id: authorLogin._id), "unfollow")
        #expect(unfollow.user == readerLogin._id && unfollow.following == authorLogin._id && !unfollow.status)

        // The author's own profile tab: profile, page 1 through userRead, then the prefetch of page 2 — which the
        // view model sends as PostRouter.read, the news feed after that cursor.
        let authorMe = try await author.call(Twin.ProfileResponseDTO.self, .profileRead, "author's profile tab")
        #expect(authorMe.birthDay == "2000년 01월 01일" && authorMe.phoneNum == nil)
        let page1 = try await author.call(
            Twin.PostReadResponseDTO.self, .userRead(id: authorMe.id, parameters: .init(next: nil)), "my Bups 1")
        #expect(page1.data.map(\._id) == Array(authorBups.reversed().prefix(5)) && page1.nextCursor != "0")
        let page2 = try await author.call(
            Twin.PostReadResponseDTO.self, .read(parameters: .init(next: page1.nextCursor)), "my Bups 2")
        #expect(page2.data.contains { $0._id == authorBups.first }, "my oldest Bup is on page 2")
        withKnownIssue(
            "Todogram defect: Presentation/Scene/Profile/ViewModel/ProfileViewModel.swift prefetches the next page of my Bups with PostRouter.read (the news feed) instead of PostRouter.userRead, so everyone's older Bups appear under my profile"
        ) {
            #expect(page2.data.allSatisfy { $0.creator._id == authorMe.id })
        }

        // Profile edit: my profile (MyInterceptor), then the upload of nick, phone, birthday and a photo.
        _ = try await author.requestWithMyInterceptor(Twin.ProfileResponseDTO.self, .profileRead)
        let newNick = TestEnvironment.unique("불꽃")
        let edited = try await author.require(
            try await author.upload(
                Twin.ProfileResponseDTO.self,
                .profileUpdate(
                    body: .init(
                        nick: newNick, phoneNum: "01098765432", birthDay: "2000년 01월 02일", files: [TestImages.png]))),
            "profile edit")
        #expect(edited.id == authorLogin._id && edited.nick == newNick && edited.phoneNum == "01098765432")
        #expect(edited.birthDay == "2000년 01월 02일" && Set(edited.posts) == Set(authorBups))
        let portrait = try await author.image(try #require(edited.profileImageString))
        #expect(portrait.status == 200 && portrait.body == TestImages.png)

        // The reader's detail shows the new nick and photo on the Bup and keeps the comment.
        let seen = try await reader.call(Twin.PostDTO.self, .singleRead(postId: newest), "detail after edit")
        #expect(seen.creator.nick == newNick && seen.creator.profile == edited.profileImageString)
        #expect(seen.comments?.first?.creator.nick == readerNick)
    }

    /// Ten minutes after login: the authenticator renews and retries but keeps the new token to itself, so the
    /// next call pays again; the composer's MyInterceptor call stores it; an upload after expiry is lost; then the
    /// refresh token expires (418 → login screen); login again; withdraw; the account is gone.
    @Test func tokenExpiryUploadAndWithdraw() async throws {
        let client = try TwinClient()
        let (member, login, nick) = try await Twin.newMember(client)
        let first = try await Twin.postBup(member, "#기록 첫 Bup")

        // The feed after expiry: 419 → GET /refresh → the same call again.
        try await member.letAccessTokenExpire()
        let expired = await member.token
        var before = await member.sent.count
        let feed = try await member.call(Twin.PostReadResponseDTO.self, .read(parameters: .init(next: nil)), "feed")
        // The app's page is the newest five of every Todogram user's posts: other tests post there at the same time,
        // so the page holds this post or five newer ones (ids are time-ordered).
        #expect(
            feed.data.contains { $0._id == first._id }
                || (feed.data.count == 5 && feed.data.allSatisfy { $0._id > first._id }))
        #expect(Array(await member.sent.dropFirst(before)) == ["GET /post 419", "GET /refresh 200", "GET /post 200"])
        #expect(await member.token == expired, "SesacAuthenticator keeps the new token inside the interceptor")

        // The profile tab next: the expired Keychain token is sent again.
        before = await member.sent.count
        let me = try await member.call(Twin.ProfileResponseDTO.self, .profileRead, "profile tab")
        #expect(me.id == login._id && me.posts == [first._id])
        let profileSends = await member.sent.count - before
        withKnownIssue(
            "Todogram defect: Data/Network/Interceptor/SesacAuthenticator.swift's refresh never writes the new token to the Keychain, and NetworkManager builds a new credential from the Keychain for every call, so after expiry every call costs 419 + GET /refresh + a resend"
        ) {
            #expect(profileSends == 1)
        }
        #expect(profileSends == 3)

        // The composer's own profile read goes through MyInterceptor, which does store the renewed token.
        before = await member.sent.count
        _ = try await Twin.openComposer(member)
        #expect(
            Array(await member.sent.dropFirst(before)) == [
                "GET /profile/me 419", "GET /refresh 200", "GET /profile/me 200",
            ])
        #expect(await member.token != expired)
        let second = try await member.upload(Twin.PostCreateResponse.self, .create(body: Twin.bupRequest("#기록 둘째")))
        #expect(second.value != nil, "posted with the stored token: \(second)")

        // The token expires while the composer is open: the upload has no interceptor.
        _ = try await Twin.openComposer(member)
        try await member.letAccessTokenExpire()
        let lost = try await member.upload(Twin.PostCreateResponse.self, .create(body: Twin.bupRequest("#기록 셋째")))
        let lastSent = await member.sent.last
        #expect(lost.status == 419 && lastSent == "POST /post 419", "sent once, not retried")
        withKnownIssue(
            "Todogram defect: Infrastructure/NetworkManager.swift's upload uses AF.upload without an interceptor, so a 419 is never refreshed; the view model catches it into Single.never and the Bup is lost"
        ) {
            #expect(lost.value != nil)
        }
        let afterLost = try await member.call(Twin.ProfileResponseDTO.self, .profileRead, "profile after the 419")
        #expect(afterLost.posts.count == 2, "only the first two Bups exist")

        // Two weeks later: 419 → refresh 418 → NetworkError.refresh(.refreshTokenExpiration) → "로그인 화면으로".
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        // The composer first: MyInterceptor's refresh fails (`.doNotRetryWithError`); the view model catches it
        // into Single.never — no profile row, no alert.
        let silent = try await member.requestWithMyInterceptor(Twin.ProfileResponseDTO.self, .profileRead)
        let (statuses, screensBefore) = (await member.refreshStatuses, await member.loginScreens)
        #expect(silent.status == 419 && statuses.last == 418 && screensBefore == 0)
        // Then the feed: the authenticator's refresh fails too, and this screen's alert leads to the login screen.
        let refused = try await member.request(Twin.PostReadResponseDTO.self, .read(parameters: .init(next: nil)))
        guard case .refreshFailed(let status) = refused else {
            Issue.record("expected a failed refresh, got \(refused)")
            return
        }
        let loginScreens = await member.loginScreens
        #expect(status == 418 && loginScreens == 1)

        // Login again (the Keychain is overwritten), then Settings → "회원탈퇴".
        _ = try await member.login()
        let withdrawn = try await member.call(Twin.WithdrawResponse.self, .withdraw, "withdraw")
        #expect(
            withdrawn._id == login._id && withdrawn.nick == nick && withdrawn.email == "\(nick)@todogram.example.com")
        await member.clearKeychain()

        // The login screen again: the withdrawn account is refused (401); the email is free again.
        let again = try await member.requestForUser(
            Twin.LoginResponse.self, .login(email: "\(nick)@todogram.example.com", password: "bup!2024pass"))
        #expect(again.status == 401)
        let free = try await member.requestWithMyInterceptor(
            Twin.EmailValidationResponseDTO.self, .emailChek(email: "\(nick)@todogram.example.com"))
        #expect(free.value != nil, "the email is free again: \(free)")
    }
}
