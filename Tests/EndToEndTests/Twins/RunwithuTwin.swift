import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **Runwithu** (함께 달려요 RunwithU, github.com/hankyeol-dev/Runwithu, G1, Aug–Sep 2024): a
/// running community. Members write running logs ("epilogues", with a `RunningInfo` JSON in `content2`),
/// running-gear reviews (brand, type, rating and link in `content2…5`, with photos) and questions (`content1` names
/// the kind of post), all under the public `product_id` `runwithu_community_posts_public`; they create running
/// groups (`runwithu_running_group`, entry limit, spot and level in `content1…3`) that others join with `like`; they
/// invite the runners they follow to a run (`runwithu_running_inviation`, the invited user ids joined by a space in
/// `content1`, a `RunningInfo` JSON in `content2`) and accept an invitation with `like`; profiles with
/// follow/unfollow; comments.
///
/// The app's network layer (`runwithu/Protocol/EndPoint.swift`, `runwithu/Service/API/*.swift`,
/// `runwithu/Service/Auth/*.swift`, DTOs in `runwithu/Model/DTO/**`): plain `URLSession` with the secret key as a
/// session-wide `httpAdditionalHeaders` entry; `EndPointProtocol.asURLRequest()` builds
/// `AppEnvironment.baseURL + path + endPoint` (the base URL ends in `/v1`), sets `URLComponents.queryItems`, every
/// header of the case (`Content-Type: application/json` on every JSON call, GET, DELETE and image GETs included)
/// and, when `isNeedToken`, the keychain access token in `Authorization`; bodies are `JSONEncoder()` output (`nil`
/// optionals left out). Uploads (`POST /v1/posts/files`) are hand-built multipart bodies: one `files` part per
/// photo, every one named `postImage` and declared `image/png`, boundary `UUID().uuidString`.
/// `NetworkService.request` (every call with a model) handles **419 without calling the refresh route**: with
/// auto-login on it logs in again with the e-mail and password kept in `UserDefaults` and resends; with it off it
/// throws `needToRefreshRefreshToken`, and several view models then call `tempLoginAPI()`, which signs in the
/// app's *demo account*. Only `upload` and `requestImage` call `GET /v1/auth/refresh` (`Authorization` = the
/// expired token, the refresh token, and the JSON `Content-Type`) and resend. Answers are decoded with a plain
/// `JSONDecoder()`; dates stay strings.
///
/// Mirrored files: `runwithu/Protocol/EndPoint.swift`, `runwithu/Service/API/Network.swift`,
/// `runwithu/Service/API/{User,Post,Auth}EndPoint.swift`, `runwithu/Service/Auth/TokenManager.swift`,
/// `runwithu/Service/Auth/UserDefaultsManager.swift`, `runwithu/Model/DTO/**`, `runwithu/Model/Posts/*.swift`,
/// `runwithu/Enum/Posts/*.swift`, `runwithu/Extension/Extension+Date.swift`, and the view models named at each step.
///
/// Departures and gaps, written down:
/// - `AppEnvironment` (base URL, header names, secret key, demo account) is not in the repository. The header names
///   are the LSLP spellings `SesacKey`, `Authorization`, `Refresh`; the demo account is one the twin signs up.
/// - At the repository's HEAD, `SceneDelegate` starts on `TestViewController` (a marathon list, work in progress;
///   its iamport button never reaches the server) and the login/tab-bar start is commented out. The journeys run
///   both: the marathon screen's two calls and the login → tab bar flow the rest of the app is built for.
/// - Writing inside a group is not reachable (the group screen's bottom-sheet choice is never bound to a view
///   model, and every writer passes `isInGroupSide: false`), so the group's post lists are only read.
/// - The router's `updatePost`, `deletePost`, `updateProfile`, `updateProfileImage` and `searchUserByNick` are
///   reached by no screen and are not mirrored. There is no withdraw and no payment validation in the app.
/// - After a 419 and an automatic login the app resends through the same recursive call without a bound; the twin
///   resends once. A model that cannot decode an answer is `dataNotFound` in the app; the twin throws the
///   decoding failure itself so that the report shows the body.
/// - The photo picker's images are replaced by a PNG test image (the app declares `image/png` for every photo).
enum RunwithuTwin {
    // MARK: - Constants (runwithu/Enum/Posts/*.swift; AppEnvironment is not in the repository)

    /// `ProductIds` (runwithu/Enum/Posts/ProductIds.swift), the app's hard-coded `product_id`s.
    enum ProductIds: String, Sendable {
        case runwithu_community_posts_public, runwithu_community_posts_group, runwithu_running_group,
            runwithu_running_inviation
    }

    /// `TestViewController.marathonProductId` (runwithu/App/TestViewController.swift).
    static let marathonProductId = "runwithu_community_posts_marathon"

    /// `PostsCommunityType` (runwithu/Enum/Posts/PostsCommunityType.swift): the kind of post, in `content1`.
    enum PostsCommunityType: String, Sendable {
        case epilogues, product_epilogues, qnas, open_self_marathons
    }

    /// `AppEnvironment` header names and values (inferred, see above).
    enum AppEnvironment {
        static let headerSecretKey = "SesacKey"
        static let headerAuthKey = "Authorization"
        static let headerRefreshKey = "Refresh"
        static let headerContentKey = "Content-Type"
        static let headerContentJsonValue = "application/json"
        static let headerContentMultiValue = "multipart/form-data"
    }

    // MARK: - DTOs (runwithu/Model/DTO/**)

    // runwithu/Model/DTO/User/JoinDTO.swift (phoneNum and birthDay are always nil: JoinViewModel)
    struct JoinInput: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
    }

    struct JoinOutput: Decodable, Sendable { let user_id: String; let email: String; let nick: String }

    // runwithu/Model/DTO/User/LoginDTO.swift
    struct LoginInput: Encodable, Sendable { let email: String; let password: String }

    struct LoginOutput: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // runwithu/Model/DTO/User/ValidEmailDTO.swift
    struct ValidEmailInput: Encodable, Sendable { let email: String }
    struct ValidEmailOutput: Decodable, Sendable { let message: String }

    // runwithu/Model/DTO/Auth/RefreshTokenDTO.swift
    struct RefreshTokenInput: Sendable { let accessToken: String; let refreshToken: String }

    struct RefreshTokenOutput: Decodable, Sendable { let accessToken: String }

    // runwithu/Model/DTO/User/ProfileDTO.swift
    struct ProfileOutput: Decodable, Sendable {
        let user_id: String
        let email: String?
        let nick: String
        let phoneNum: String?
        let birthDay: String?
        let profileImage: String?
        let followers: [BaseProfileType]
        let following: [BaseProfileType]
        let posts: [String]
    }

    struct ProfileUserIdOutput: Decodable, Sendable { let user_id: String }
    struct FollowOutput: Decodable, Sendable { let following_status: Bool }
    struct FollowingsOutput: Decodable, Sendable { let following: [BaseProfileType] }

    struct BaseProfileType: Decodable, Sendable { let user_id: String; let nick: String; let profileImage: String? }

    // runwithu/Model/DTO/Post/PostsDTO.swift (`nil` contents and files are left out by the synthesized encoder)
    struct PostsInput: Encodable, Sendable {
        let product_id: String
        let title: String
        let content: String
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let files: [String]?
    }

    struct PostsOutput: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let title: String
        let content: String
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let createdAt: String
        let creator: BaseProfileType
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTags: [String]
        let comments: [CommentsOutput]
    }

    // runwithu/Model/DTO/Post/GetPostDTO.swift (`limit` defaults to 5; every caller passes its own)
    struct GetPostsInput: Sendable {
        let product_id: String
        var limit: Int = 5
        let next: String?
    }

    struct GetPostsOutput: Decodable, Sendable { let data: [PostsOutput]; let next_cursor: String }

    // runwithu/Model/DTO/Post/ImageUploadDTO.swift
    struct ImageUploadOutput: Decodable, Sendable { let files: [String] }

    // runwithu/Model/DTO/Post/CommentsDTO.swift
    struct CommentInput: Encodable, Sendable { let content: String }

    struct CommentsOutput: Decodable, Sendable {
        let comment_id: String
        let content: String
        let createdAt: String
        let creator: BaseProfileType
    }

    // runwithu/Model/DTO/Post/PostLikeDTO.swift
    struct PostLikeStatus: Encodable, Sendable { let like_status: Bool }
    struct PostLikeOutput: Decodable, Sendable { let like_status: Bool }

    // runwithu/Model/Posts/RunningInfo.swift: stored as a JSON string in `content2`.
    struct RunningInfo: Codable, Sendable, Equatable {
        var date: String
        var course: String?
        var timeTaking: Int?
        var hardType: String?
        var supplies: String?
        var reward: String?

        var byJsonString: String? {
            guard let json = try? JSONEncoder().encode(self) else { return nil }
            return String(data: json, encoding: .utf8)
        }

        /// `isRunningToday || isRunningInFuture`: the day part of `date` (before the first space) is today or later.
        var isTodayOrLater: Bool {
            guard let day = date.split(separator: " ").first.map(String.init) else { return false }
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "ko_KR")
            formatter.dateFormat = "yyyy-MM-dd"
            guard let date = formatter.date(from: day) else { return false }
            let components = Calendar.current.dateComponents([.year, .month, .day], from: date)
            let today = Calendar.current.dateComponents([.year, .month, .day], from: Date())
            guard let days = Calendar.current.dateComponents([.day], from: today, to: components).day else {
                return false
            }
            return days >= 0
        }
    }

    /// `Date.formattedRunningDate()` (runwithu/Extension/Extension+Date.swift): what the date pickers send.
    static func formattedRunningDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "ko_KR")
        formatter.dateFormat = "yyyy-MM-dd E요일 a hh시 mm분"
        return formatter.string(from: date)
    }

    // MARK: - Errors (runwithu/Enum/NetworkErrors.swift, NetworkService.handleStatusCode)

    enum NetworkErrors: Error, Equatable, Sendable {
        case invalidURL, invalidRequest, invalidResponse, invalidAccessToken, invalidAccess, needToRefreshAccessToken,
            needToRefreshRefreshToken, dataNotFound, invalidUpload, overlapUsername
    }

    /// `NetworkService.handleStatusCode`: any other non-2xx status falls through to decoding.
    static func handleStatusCode(_ statusCode: Int) throws {
        switch statusCode {
        case 400: throw NetworkErrors.invalidRequest
        case 401: throw NetworkErrors.invalidAccessToken
        case 402: throw NetworkErrors.overlapUsername
        case 403: throw NetworkErrors.invalidAccess
        case 409: throw NetworkErrors.invalidResponse
        case 410: throw NetworkErrors.dataNotFound
        case 418: throw NetworkErrors.needToRefreshRefreshToken
        case 419: throw NetworkErrors.needToRefreshAccessToken
        case 444: throw NetworkErrors.invalidURL
        case 445: throw NetworkErrors.invalidAccess
        default: break
        }
    }

    // MARK: - End points (runwithu/Protocol/EndPoint.swift, runwithu/Service/API/*EndPoint.swift)

    enum NetworkMethod: String, Sendable {
        case get = "GET", post = "POST", put = "PUT", delete = "DELETE"
    }

    /// `EndPointProtocol`: `path + endPoint` is appended to the base URL, which ends in `/v1`.
    protocol EndPoint: Sendable {
        var isNeedToken: Bool { get }
        var path: String { get }
        var endPoint: String { get }
        var method: NetworkMethod { get }
        var headers: [(String, String)]? { get }
        var parameters: [(String, String?)]? { get }
        var body: Data? { get }
    }

    // runwithu/Service/API/UserEndPoint.swift
    enum UserEndPoint: EndPoint {
        case join(JoinInput)
        case login(LoginInput)
        case validEmail(ValidEmailInput)
        case readMyProfile
        case readAnotherProfile(userId: String)
        case follow(userId: String, isFollowing: Bool)

        var isNeedToken: Bool {
            switch self {
            case .join, .login, .validEmail: false
            default: true
            }
        }

        var path: String {
            switch self {
            case .join, .login, .readMyProfile, .readAnotherProfile: "/users"
            case .validEmail: "/validation"
            case .follow: "/follow"
            }
        }

        var endPoint: String {
            switch self {
            case .join: "/join"
            case .login: "/login"
            case .validEmail: "/email"
            case .readMyProfile: "/me/profile"
            case .readAnotherProfile(let userId): "/\(userId)/profile"
            case .follow(let userId, _): "/\(userId)"
            }
        }

        var method: NetworkMethod {
            switch self {
            case .join, .login, .validEmail: .post
            case .readMyProfile, .readAnotherProfile: .get
            case .follow(_, let isFollowing): isFollowing ? .delete : .post
            }
        }

        var headers: [(String, String)]? {
            [(AppEnvironment.headerContentKey, AppEnvironment.headerContentJsonValue)]
        }

        var parameters: [(String, String?)]? { nil }

        var body: Data? {
            switch self {
            case .join(let input): try? JSONEncoder().encode(input)
            case .login(let input): try? JSONEncoder().encode(input)
            case .validEmail(let input): try? JSONEncoder().encode(input)
            default: nil
            }
        }
    }

    // runwithu/Service/API/PostEndPoint.swift
    enum PostEndPoint: EndPoint {
        case postImageUpload(files: [[UInt8]], boundary: String = UUID().uuidString)
        case posts(PostsInput)
        case getPost(postId: String)
        case getPosts(GetPostsInput)
        case getPostImage(imageURL: String)
        case postComment(postId: String, comment: CommentInput)
        case postLike(postId: String, isLike: PostLikeStatus)

        var isNeedToken: Bool { true }

        var path: String {
            switch self {
            case .getPostImage(let imageURL): "/\(imageURL)"
            default: "/posts"
            }
        }

        var endPoint: String {
            switch self {
            case .postImageUpload: "/files"
            case .posts, .getPosts, .getPostImage: ""
            case .getPost(let postId): "/\(postId)"
            case .postComment(let postId, _): "/\(postId)/comments"
            case .postLike(let postId, _): "/\(postId)/like"
            }
        }

        var method: NetworkMethod {
            switch self {
            case .postImageUpload, .posts, .postComment, .postLike: .post
            case .getPost, .getPosts, .getPostImage: .get
            }
        }

        var headers: [(String, String)]? {
            switch self {
            case .postImageUpload(_, let boundary):
                [(AppEnvironment.headerContentKey, AppEnvironment.headerContentMultiValue + "; boundary=\(boundary)")]
            default:
                [(AppEnvironment.headerContentKey, AppEnvironment.headerContentJsonValue)]
            }
        }

        /// `product_id`, `limit`, then `next` only when it is not `nil` (an empty `next` is sent as `next=`).
        var parameters: [(String, String?)]? {
            guard case .getPosts(let input) = self else { return nil }
            var items: [(String, String?)] = [("product_id", input.product_id), ("limit", String(input.limit))]
            if let next = input.next { items.append(("next", next)) }
            return items
        }

        var body: Data? {
            switch self {
            case .postImageUpload(let files, let boundary):
                // `asMultipartFileDatas(for:key:values:filename:)`: every photo is `postImage`, `image/png`.
                var form = TwinMultipart()
                form.boundary = boundary
                for file in files { form.file("files", filename: "postImage", mimeType: "image/png", bytes: file) }
                return form.encoded()
            case .posts(let input): return try? JSONEncoder().encode(input)
            case .postComment(_, let comment): return try? JSONEncoder().encode(comment)
            case .postLike(_, let isLike): return try? JSONEncoder().encode(isLike)
            default: return nil
            }
        }
    }

    // runwithu/Service/API/AuthEndPoint.swift: the tokens go in as headers, `isNeedToken` is false.
    enum AuthEndPoint: EndPoint {
        case refreshToken(RefreshTokenInput)

        var isNeedToken: Bool { false }
        var path: String { "/auth" }
        var endPoint: String { "/refresh" }
        var method: NetworkMethod { .get }
        var headers: [(String, String)]? {
            guard case .refreshToken(let input) = self else { return nil }
            return [
                (AppEnvironment.headerContentKey, AppEnvironment.headerContentJsonValue),
                (AppEnvironment.headerAuthKey, input.accessToken),
                (AppEnvironment.headerRefreshKey, input.refreshToken),
            ]
        }
        var parameters: [(String, String?)]? { nil }
        var body: Data? { nil }
    }

    /// `asURLRequest()` / `asUploadURLRequest()` plus the session's `httpAdditionalHeaders`: the token is set only
    /// inside `if let headers` (every case has headers).
    static func urlRequest(_ endPoint: any EndPoint, accessToken: String, key: String) -> TwinRequest {
        var headers = [(AppEnvironment.headerSecretKey, key)]
        if let own = endPoint.headers {
            headers += own
            if endPoint.isNeedToken { headers.append((AppEnvironment.headerAuthKey, accessToken)) }
        }
        return TwinRequest(
            endPoint.method.rawValue, "/v1" + endPoint.path + endPoint.endPoint,
            query: endPoint.parameters.map { TwinQuery.urlComponents($0) }, headers: headers, body: endPoint.body)
    }

    // MARK: - The app's state and NetworkService (runwithu/Service/API/Network.swift, runwithu/Service/Auth/*)

    /// One install of the app: the keychain (`TokenManager`), `UserDefaultSetting` and `NetworkService`.
    actor Session {
        let client: TwinClient
        /// Keychain (`TokenManager`).
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        /// `UserDefaultSetting`: e-mail and password are kept only with auto-login on (LoginViewModel.login).
        private(set) var isAutoLogin = false
        private(set) var userId = ""
        private(set) var userEmail = ""
        private(set) var userPassword = ""
        /// Every request on the wire, `"METHOD /path status"`, for the journeys to assert on.
        private(set) var sent: [String] = []
        /// `AppEnvironment.demoEmail` / `demoPassword`, used by `tempLoginAPI()`.
        let demo: (email: String, password: String)?

        init(client: TwinClient, demo: (email: String, password: String)? = nil) {
            self.client = client
            self.demo = demo
        }

        private func send(_ endPoint: any EndPoint) async throws -> GatewayClient.Reply {
            let request = RunwithuTwin.urlRequest(endPoint, accessToken: accessToken, key: client.apiKey)
            let reply = try await client.send(request)
            sent.append("\(request.method) \(request.path) \(reply.status)")
            return reply
        }

        /// `handleResponse`: status mapping, then `JSONDecoder().decode` (a failure is `dataNotFound` in the
        /// app; the twin throws the decoding failure itself so the report shows the body).
        private func handleResponse<D: Decodable & Sendable>(_ reply: GatewayClient.Reply, _ type: D.Type) throws -> D {
            if !(200..<300).contains(reply.status) { try RunwithuTwin.handleStatusCode(reply.status) }
            return try client.decode(type, from: reply)
        }

        /// `NetworkService.request(by:of:)`: a 419 goes to `autoLoginChecker` — with auto-login on, log in again
        /// with the stored e-mail and password and resend; otherwise `needToRefreshRefreshToken`. No refresh call.
        func request<D: Decodable & Sendable>(_ endPoint: any EndPoint, of type: D.Type) async throws -> D {
            let reply = try await send(endPoint)
            do {
                return try handleResponse(reply, type)
            } catch NetworkErrors.needToRefreshAccessToken {
                guard isAutoLogin, await autoLogin() else { throw NetworkErrors.needToRefreshRefreshToken }
                // The app recurses without a bound; a 419 right after a fresh login would not end in the app.
                let again = try await send(endPoint)
                return try handleResponse(again, type)
            }
        }

        /// `UserDefaultsManager.autoLogin()`: login with what `UserDefaults` keeps, tokens into the keychain.
        private func autoLogin() async -> Bool {
            do {
                let result = try await request(
                    UserEndPoint.login(.init(email: userEmail, password: userPassword)), of: LoginOutput.self)
                accessToken = result.accessToken
                refreshToken = result.refreshToken
                return true
            } catch {
                return false
            }
        }

        /// `TokenManager.refreshToken()`: `GET /v1/auth/refresh` through `request(by:of:)`; only the access token
        /// is renewed.
        func refreshTokens() async -> Bool {
            do {
                let result = try await request(
                    AuthEndPoint.refreshToken(.init(accessToken: accessToken, refreshToken: refreshToken)),
                    of: RefreshTokenOutput.self)
                accessToken = result.accessToken
                return true
            } catch {
                return false
            }
        }

        /// `NetworkService.upload(by:of:)`: 419 → refresh → resend (a failed refresh is
        /// `needToRefreshRefreshToken`); any other failure is `invalidUpload`.
        func upload<D: Decodable & Sendable>(_ endPoint: any EndPoint, of type: D.Type) async throws -> D {
            do {
                let reply = try await send(endPoint)
                return try handleResponse(reply, type)
            } catch NetworkErrors.needToRefreshAccessToken {
                guard await refreshTokens() else { throw NetworkErrors.needToRefreshRefreshToken }
                let reply = try await send(endPoint)
                return try handleResponse(reply, type)
            } catch {
                throw NetworkErrors.invalidUpload
            }
        }

        /// `NetworkService.requestImage(by:imageHandler:)` (`UIView.getImageFromServer`): 419 → refresh → resend.
        func requestImage(_ imageURL: String) async throws -> [UInt8] {
            let reply = try await send(PostEndPoint.getPostImage(imageURL: imageURL))
            do {
                if !(200..<300).contains(reply.status) { try RunwithuTwin.handleStatusCode(reply.status) }
                return reply.body
            } catch NetworkErrors.needToRefreshAccessToken {
                guard await refreshTokens() else { throw NetworkErrors.needToRefreshRefreshToken }
                let again = try await send(PostEndPoint.getPostImage(imageURL: imageURL))
                if !(200..<300).contains(again.status) { throw NetworkErrors.invalidRequest }
                return again.body
            } catch {
                throw NetworkErrors.invalidRequest
            }
        }

        /// LoginViewModel.login: tokens into the keychain, the user id always, e-mail and password only with
        /// auto-login on.
        @discardableResult
        func login(email: String, password: String, autoLogin: Bool) async throws -> LoginOutput {
            let result = try await request(
                UserEndPoint.login(.init(email: email, password: password)), of: LoginOutput.self)
            accessToken = result.accessToken
            refreshToken = result.refreshToken
            userId = result.user_id
            isAutoLogin = autoLogin
            userEmail = autoLogin ? result.email : ""
            userPassword = autoLogin ? password : ""
            return result
        }

        /// `BaseViewModelProtocol.tempLoginAPI()`: signs in the demo account and keeps its tokens (UserDefaults
        /// keeps the member's id).
        func tempLoginAPI() async {
            guard let demo else { return }
            if let result = try? await request(
                UserEndPoint.login(.init(email: demo.email, password: demo.password)), of: LoginOutput.self)
            {
                accessToken = result.accessToken
                refreshToken = result.refreshToken
            }
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }

        func clearLog() { sent = [] }
    }

    // MARK: - Screens the journeys reuse

    /// JoinViewModel (e-mail check, join; nick ≥ 2 characters, password ≥ 6) then LoginViewModel.
    static func join(
        _ client: TwinClient, nick: String = TestEnvironment.unique("러너"), password: String = "run123",
        autoLogin: Bool = true, demo: (email: String, password: String)? = nil
    ) async throws -> (session: Session, email: String, nick: String) {
        let session = Session(client: client, demo: demo)
        // The join screen's e-mail rule is ASCII-only (`[A-Z0-9a-z._%+-]+@…`).
        let email = "\(TestEnvironment.unique("runner"))@example.com"
        let checked = try await session.request(UserEndPoint.validEmail(.init(email: email)), of: ValidEmailOutput.self)
        #expect(!checked.message.isEmpty)
        let joined = try await session.request(
            UserEndPoint.join(.init(email: email, password: password, nick: nick, phoneNum: nil, birthDay: nil)),
            of: JoinOutput.self)
        #expect(joined.email == email && joined.nick == nick)
        let login = try await session.login(email: email, password: password, autoLogin: autoLogin)
        #expect(login.user_id == joined.user_id)
        return (session, email, nick)
    }

    /// `PostEndPoint.getPosts` with a `GetPostsInput`.
    static func getPosts(_ productId: ProductIds, limit: Int, next: String?, suffix: String = "") -> PostEndPoint {
        .getPosts(.init(product_id: productId.rawValue + suffix, limit: limit, next: next))
    }

    /// RunningCommunityViewModel: the first page (`next` = `""`, `limit=10`), then one page per scroll to the
    /// end while the stored `next` is not empty (`"0"` is stored as `""`).
    static func communityFeed(_ session: Session) async throws -> (posts: [PostsOutput], cursors: [String]) {
        var posts: [PostsOutput] = []
        var cursors: [String] = []
        var next = ""
        repeat {
            let page = try await session.request(
                getPosts(.runwithu_community_posts_public, limit: 10, next: next), of: GetPostsOutput.self)
            #expect(page.data.count <= 10)
            posts += page.data
            cursors.append(page.next_cursor)
            next = page.next_cursor == "0" ? "" : page.next_cursor
        } while !next.isEmpty && cursors.count < 1_000
        #expect(cursors.last == "0", "the community feed never ended")
        return (posts, cursors)
    }

    /// ProfileViewModel.filterInvitation (limit 100): invitations naming me in `content1` whose run is today or
    /// later, split by whether I accepted (`likes`).
    static func myInvitations(_ session: Session) async throws -> (notConsented: [String], consented: [String]) {
        let myId = await session.userId
        let list = try await session.request(
            getPosts(.runwithu_running_inviation, limit: 100, next: nil), of: GetPostsOutput.self
        ).data
        func upcoming(_ post: PostsOutput) -> Bool {
            guard let content2 = post.content2,
                let info = try? JSONDecoder().decode(RunningInfo.self, from: Data(content2.utf8))
            else { return false }
            return info.isTodayOrLater
        }
        let mine = list.filter { ($0.content1 ?? "").contains(myId) && upcoming($0) }
        return (
            mine.filter { !$0.likes.contains(myId) }.map(\.post_id),
            mine.filter { $0.likes.contains(myId) }.map(\.post_id)
        )
    }

    // MARK: - What each writing screen puts into `PostsInput`

    /// QnaPostViewModel.createPost: the picker's Korean label (`byKoreanQnaCase`) in `content2`, no files.
    static func qna(title: String, content: String, qnaType: String) -> PostsInput {
        PostsInput(
            product_id: ProductIds.runwithu_community_posts_public.rawValue, title: title, content: content,
            content1: PostsCommunityType.qnas.rawValue, content2: qnaType, content3: nil, content4: nil,
            content5: nil, files: nil)
    }

    /// ProductEpiloguePostViewModel.createPost: brand and type (Korean picker labels), rating, link; `files` is
    /// always sent.
    static func gearReview(
        title: String, content: String, brand: String, type: String, rating: String?, link: String?, files: [String]
    ) -> PostsInput {
        PostsInput(
            product_id: ProductIds.runwithu_community_posts_public.rawValue, title: title, content: content,
            content1: PostsCommunityType.product_epilogues.rawValue, content2: brand, content3: type,
            content4: rating, content5: link, files: files)
    }

    /// RunningEpiloguePostViewModel.createPost: `RunningInfo` JSON, the picked invitation's id, `files` only
    /// when photos were uploaded.
    static func runningLog(
        title: String, content: String, info: RunningInfo, invitationId: String?, files: [String]
    ) -> PostsInput {
        PostsInput(
            product_id: ProductIds.runwithu_community_posts_public.rawValue, title: title, content: content,
            content1: PostsCommunityType.epilogues.rawValue, content2: info.byJsonString, content3: invitationId,
            content4: nil, content5: nil, files: files.isEmpty ? nil : files)
    }

    /// RunningGroupCreateViewModel.createGroup: entry limit, spot and level (`byLevel`) in `content1…3`.
    static func runningGroup(
        title: String, content: String, entryLimit: String, spot: String, level: String
    ) -> PostsInput {
        PostsInput(
            product_id: ProductIds.runwithu_running_group.rawValue, title: title, content: content,
            content1: entryLimit, content2: spot, content3: level, content4: nil, content5: nil, files: nil)
    }

    /// `CreateInvitationInput.formatToPostsInput` (runwithu/Model/Posts/CreateInvitationInput.swift).
    static func invitation(title: String, content: String, invited: [String], info: RunningInfo) -> PostsInput {
        PostsInput(
            product_id: ProductIds.runwithu_running_inviation.rawValue, title: title, content: content,
            content1: invited.joined(separator: " "), content2: info.byJsonString, content3: nil, content4: nil,
            content5: nil, files: nil)
    }

}

@Suite("Runwithu twin")
struct RunwithuTwinTests {
    typealias App = RunwithuTwin

    /// JoinViewModel (e-mail check, a nick with a space, join, the e-mail again), LoginViewModel with auto-login,
    /// HEAD's marathon start screen, the three tabs, nine questions, a gear review with two photos and a running
    /// log; a second member pages the community feed to its end, opens the review (photos) and the log and
    /// comments; the writer's My Page loads every post it lists.
    @Test func joinWriteCommunityPostsPageTheFeedAndComment() async throws {
        let client = try TwinClient()
        let nick = TestEnvironment.unique("러너")
        let email = "\(TestEnvironment.unique("runner"))@example.com"
        let joinScreen = App.Session(client: client)
        func join(_ nick: String) -> App.UserEndPoint {
            .join(.init(email: email, password: "run123", nick: nick, phoneNum: nil, birthDay: nil))
        }

        // JoinViewModel: the e-mail check; a nick with a space is 402, shown as "이미 사용중인 러너이름이에요."
        let checked = try await joinScreen.request(
            App.UserEndPoint.validEmail(.init(email: email)), of: App.ValidEmailOutput.self)
        #expect(!checked.message.isEmpty)
        await #expect(throws: App.NetworkErrors.overlapUsername) {
            try await joinScreen.request(join("한강 러너"), of: App.JoinOutput.self)
        }
        let joinBody = try JSONSerialization.jsonObject(with: try #require(join(nick).body)) as? [String: Any]
        #expect(Set(joinBody?.keys.map { $0 } ?? []) == ["email", "password", "nick"], "nil values are left out")
        let joined = try await joinScreen.request(join(nick), of: App.JoinOutput.self)
        #expect(joined.nick == nick)
        // The e-mail check again: 409 → "이미 사용중인 이메일이에요." (`invalidResponse`).
        await #expect(throws: App.NetworkErrors.invalidResponse) {
            try await joinScreen.request(
                App.UserEndPoint.validEmail(.init(email: email)), of: App.ValidEmailOutput.self)
        }

        // LoginViewModel with "자동 로그인" checked; 6 characters is the shortest password the screens take.
        let writer = App.Session(client: client)
        let login = try await writer.login(email: email, password: "run123", autoLogin: true)
        #expect(login.user_id == joined.user_id && login.nick == nick)
        let writerId = login.user_id

        // HEAD's start screen (TestViewController): my nick, then the marathon posts (limit 20, no `next`).
        let me = try await writer.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        #expect(me.nick == nick && me.email == email && me.posts.isEmpty)
        let marathons = try await writer.request(
            App.PostEndPoint.getPosts(.init(product_id: App.marathonProductId, limit: 20, next: nil)),
            of: App.GetPostsOutput.self)
        #expect(marathons.data.count <= 20)

        // The tab bar: community (limit 10, `next=`), running groups (limit 1000), My Page (profile, invitations).
        let community = try await writer.request(
            App.getPosts(.runwithu_community_posts_public, limit: 10, next: ""), of: App.GetPostsOutput.self)
        #expect(community.data.count <= 10)
        let groups = try await writer.request(
            App.getPosts(.runwithu_running_group, limit: 1000, next: nil), of: App.GetPostsOutput.self)
        #expect(groups.data.count <= 1000, "limit=1000 is answered in full (decision 0042)")
        _ = try await writer.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        let (notConsented, consented) = try await App.myInvitations(writer)
        #expect(notConsented.isEmpty && consented.isEmpty)

        // QnaPostViewModel, nine questions.
        var questions: [App.PostsOutput] = []
        for number in 1...9 {
            let question = try await writer.request(
                App.PostEndPoint.posts(
                    App.qna(title: "질문 \(number): 무릎이 아파요", content: "10km 이후 무릎이 아파요", qnaType: "러닝 부상 관련")),
                of: App.PostsOutput.self)
            #expect(question.content1 == "qnas" && question.content2 == "러닝 부상 관련" && question.files.isEmpty)
            #expect(question.creator.user_id == writerId && question.comments.isEmpty)
            questions.append(question)
        }

        // ProductEpiloguePostViewModel: two photos (`files` × 2, each `postImage`, `image/png`), then the review.
        let uploaded = try await writer.upload(
            App.PostEndPoint.postImageUpload(files: [TestImages.png, TestImages.png]), of: App.ImageUploadOutput.self)
        #expect(uploaded.files.count == 2)
        let review = try await writer.request(
            App.PostEndPoint.posts(
                App.gearReview(
                    title: "클리프톤 9 한 달 후기", content: "쿠션이 좋아서 회복주에 딱이에요.", brand: "호카", type: "러닝화",
                    rating: "5", link: "https://www.hoka.com/kr/", files: uploaded.files)),
            of: App.PostsOutput.self)
        #expect(review.files == uploaded.files && review.content2 == "호카" && review.content3 == "러닝화")
        #expect(review.content4 == "5" && review.content5 == "https://www.hoka.com/kr/")

        // RunningEpiloguePostViewModel: the invitation picker loads first (limit 100000, my profile), then the log
        // without photos (`files` left out) with its `RunningInfo` JSON in `content2`.
        let pickable = try await writer.request(
            App.getPosts(.runwithu_running_inviation, limit: 100_000, next: nil), of: App.GetPostsOutput.self)
        #expect(pickable.data.count <= 100)
        _ = try await writer.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        let info = App.RunningInfo(
            date: App.formattedRunningDate(Date()), course: "여의도 한강공원 10km", hardType: "가볍게 달릴 수 있어요")
        let log = try await writer.request(
            App.PostEndPoint.posts(
                App.runningLog(
                    title: "아침 한강 런", content: "바람이 선선해서 뛰기 좋았어요.", info: info, invitationId: nil, files: [])),
            of: App.PostsOutput.self)
        #expect(log.files.isEmpty)
        let storedInfo = try #require(log.content2, "the running log lost its RunningInfo")
        #expect(try JSONDecoder().decode(App.RunningInfo.self, from: Data(storedInfo.utf8)) == info)

        // A second member's community tab, scrolled to the end: nothing twice, newest first, ends with "0".
        let (reader, _, readerNick) = try await App.join(client)
        let readerId = await reader.userId
        let feed = try await App.communityFeed(reader)
        let ids = feed.posts.map(\.post_id)
        #expect(Set(ids).count == ids.count, "a post was shown twice while paging")
        #expect(feed.cursors.count >= 2, "eleven posts take more than one page of 10")
        let written = [log.post_id, review.post_id] + questions.reversed().map(\.post_id)
        let positions = written.compactMap { ids.firstIndex(of: $0) }
        #expect(positions.count == written.count, "a post is missing from the feed")
        #expect(positions == positions.sorted(), "the feed is not newest first")
        // The menu shows the loaded posts whose `content1` is the selected kind.
        let shownQuestions = Set(feed.posts.filter { $0.content1 == "qnas" }.map(\.post_id))
        #expect(Set(questions.map(\.post_id)).isSubset(of: shownQuestions))

        // ProductDetailViewModel: the review comes from the list (no GET); its photos load, then a comment.
        let shownReview = try #require(feed.posts.first { $0.post_id == review.post_id })
        for path in shownReview.files {
            #expect(try await reader.requestImage(path) == TestImages.png)
        }
        let gearComment = try await reader.request(
            App.PostEndPoint.postComment(postId: review.post_id, comment: .init(content: "저도 같은 모델 신어요!")),
            of: App.CommentsOutput.self)
        #expect(gearComment.content == "저도 같은 모델 신어요!")
        #expect(gearComment.creator.user_id == readerId && gearComment.creator.nick == readerNick)

        // RunningEpilogueDetailViewModel: the log, a comment each; the screen shows the server's list reversed and
        // appends new ones at the end, so it relies on the list being newest first.
        let opened = try await reader.request(App.PostEndPoint.getPost(postId: log.post_id), of: App.PostsOutput.self)
        #expect(opened.comments.isEmpty && opened.creator.nick == nick)
        let first = try await reader.request(
            App.PostEndPoint.postComment(postId: log.post_id, comment: .init(content: "페이스 어떻게 되셨어요?")),
            of: App.CommentsOutput.self)
        let second = try await writer.request(
            App.PostEndPoint.postComment(postId: log.post_id, comment: .init(content: "6분 페이스였어요")),
            of: App.CommentsOutput.self)
        let reopened = try await writer.request(App.PostEndPoint.getPost(postId: log.post_id), of: App.PostsOutput.self)
        #expect(reopened.comments.reversed().map(\.comment_id) == [first.comment_id, second.comment_id])

        // QnaDetailViewModel: the reader answers a question; the writer sees the answer with the reader's nick.
        let question = try #require(questions.last)
        let answer = try await reader.request(
            App.PostEndPoint.postComment(postId: question.post_id, comment: .init(content: "폼롤러 추천해요")),
            of: App.CommentsOutput.self)
        let withAnswer = try await writer.request(
            App.PostEndPoint.getPost(postId: question.post_id), of: App.PostsOutput.self)
        #expect(withAnswer.comments.map(\.comment_id) == [answer.comment_id])
        #expect(withAnswer.comments.first?.creator.nick == readerNick)

        // ProfileViewModel (My Page): the profile, then every listed post fetched one by one and grouped by kind.
        let myPage = try await writer.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        #expect(Set(myPage.posts) == Set(written))
        var grouped: [String: Int] = [:]
        for postId in myPage.posts {
            let post = try await writer.request(App.PostEndPoint.getPost(postId: postId), of: App.PostsOutput.self)
            if post.product_id == App.ProductIds.runwithu_community_posts_public.rawValue, let kind = post.content1 {
                grouped[kind, default: 0] += 1
            }
        }
        #expect(grouped == ["qnas": 9, "product_epilogues": 1, "epilogues": 1])
    }

    /// RunningGroupCreateViewModel, RunningGroupListViewModel, RunningGroupDetailViewModel (join with `like`),
    /// RunnigGroupDetailInfoViewModel (entries, leave), ProfileViewModel (follow, unfollow),
    /// RunningInvitationCreateViewModel (started from the host's profile), InvitationDetailViewModel (accept),
    /// My Page's invitation lists and a running log tied to the invitation.
    @Test func runningGroupFollowAndInvitation() async throws {
        let client = try TwinClient()
        let (host, _, hostNick) = try await App.join(client)
        let (runner, _, runnerNick) = try await App.join(client)
        let hostId = await host.userId, runnerId = await runner.userId

        // The host creates a group (the level is the picker's `byLevel` text).
        let group = try await host.request(
            App.PostEndPoint.posts(
                App.runningGroup(
                    title: "새벽 한강 러닝크루", content: "매주 토요일 새벽 6시에 함께 달려요.", entryLimit: "10",
                    spot: "여의도 한강공원", level: "어느정도 (1년 이상 러닝)")),
            of: App.PostsOutput.self)
        #expect(group.content1 == "10" && group.content2 == "여의도 한강공원" && group.likes.isEmpty)

        // The runner's group tab (limit 1000): the group is among those neither created nor joined.
        let list = try await runner.request(
            App.getPosts(.runwithu_running_group, limit: 1000, next: nil), of: App.GetPostsOutput.self)
        let others = list.data.filter { $0.creator.user_id != runnerId && !$0.likes.contains(runnerId) }
        #expect(others.contains { $0.post_id == group.post_id })

        // The group screen: the post, my id (`ProfileUserIdOutput`), the group's posts (`…_group_<id>`, limit
        // 100000; nothing can be written there, see above).
        let detail = try await runner.request(App.PostEndPoint.getPost(postId: group.post_id), of: App.PostsOutput.self)
        #expect(Int(detail.content1 ?? "") == 10)
        let myId = try await runner.request(App.UserEndPoint.readMyProfile, of: App.ProfileUserIdOutput.self)
        #expect(myId.user_id == runnerId && !detail.likes.contains(myId.user_id))
        let groupPosts = try await runner.request(
            App.getPosts(.runwithu_community_posts_group, limit: 100_000, next: nil, suffix: "_" + group.post_id),
            of: App.GetPostsOutput.self)
        #expect(groupPosts.data.isEmpty && groupPosts.next_cursor == "0")

        // Join: `like` true; the screen reloads and counts the runner in (10 > 1 entry).
        let joined = try await runner.request(
            App.PostEndPoint.postLike(postId: group.post_id, isLike: .init(like_status: true)),
            of: App.PostLikeOutput.self)
        #expect(joined.like_status)
        let afterJoin = try await runner.request(
            App.PostEndPoint.getPost(postId: group.post_id), of: App.PostsOutput.self)
        #expect(afterJoin.likes == [runnerId])

        // The group's info screen: each entry's profile decoded as `BaseProfileType`.
        for entry in afterJoin.likes {
            let profile = try await runner.request(
                App.UserEndPoint.readAnotherProfile(userId: entry), of: App.BaseProfileType.self)
            #expect(profile.user_id == entry && profile.nick == runnerNick)
        }

        // The runner opens the host's profile: its posts one by one, the invitation lists, then follow.
        let hostProfile = try await runner.request(
            App.UserEndPoint.readAnotherProfile(userId: hostId), of: App.ProfileOutput.self)
        #expect(hostProfile.nick == hostNick && hostProfile.posts == [group.post_id])
        #expect(!hostProfile.followers.contains { $0.user_id == runnerId })
        for postId in hostProfile.posts {
            let post = try await runner.request(App.PostEndPoint.getPost(postId: postId), of: App.PostsOutput.self)
            #expect(post.product_id == App.ProductIds.runwithu_running_group.rawValue)
        }
        _ = try await App.myInvitations(runner)
        let followed = try await runner.request(
            App.UserEndPoint.follow(userId: hostId, isFollowing: false), of: App.FollowOutput.self)
        #expect(followed.following_status)
        let reloaded = try await runner.request(
            App.UserEndPoint.readAnotherProfile(userId: hostId), of: App.ProfileOutput.self)
        #expect(reloaded.followers.map(\.user_id) == [runnerId])

        // "함께 뛰기 초대" from the host's profile: the host is pre-selected (id and nick); the friends button loads
        // my followings (`FollowingsOutput`) and the sheet is closed with nothing new picked. The ids sent are
        // `mainInvitedUserId + followings.filter { invitedUsers.contains($0.nick) }`.
        let followings = try await runner.request(App.UserEndPoint.readMyProfile, of: App.FollowingsOutput.self)
        #expect(followings.following.map(\.user_id) == [hostId])
        let invited = [hostId] + followings.following.filter { [hostNick].contains($0.nick) }.map(\.user_id)
        let tomorrow = App.RunningInfo(
            date: App.formattedRunningDate(Date().addingTimeInterval(86_400)), course: "반포 한강공원 8km",
            timeTaking: 50, hardType: "적당히 힘들 수 있어요", supplies: "물", reward: "커피")
        let invitation = try await runner.request(
            App.PostEndPoint.posts(
                App.invitation(title: "내일 같이 뛰어요", content: "반포에서 8km 가볍게", invited: invited, info: tomorrow)),
            of: App.PostsOutput.self)
        #expect(invitation.content1 == invited.joined(separator: " "))

        // The host's My Page: the invitation waits among the not-yet-accepted ones.
        let before = try await App.myInvitations(host)
        #expect(before.notConsented.contains(invitation.post_id) && !before.consented.contains(invitation.post_id))

        // InvitationDetailViewModel: the RunningInfo from content2, the invited runners' profiles, my id, accept.
        let opened = try await host.request(
            App.PostEndPoint.getPost(postId: invitation.post_id), of: App.PostsOutput.self)
        let openedInfo = try #require(opened.content2)
        #expect(try JSONDecoder().decode(App.RunningInfo.self, from: Data(openedInfo.utf8)) == tomorrow)
        var entries: [App.BaseProfileType] = []
        for userId in (opened.content1 ?? "").split(separator: " ").map(String.init) {
            entries.append(
                try await host.request(
                    App.UserEndPoint.readAnotherProfile(userId: userId), of: App.BaseProfileType.self))
        }
        withKnownIssue(
            "Runwithu defect: RunningInvitationCreateViewModel.createInvitation sends a runner pre-selected from a profile twice (mainInvitedUserId plus the followings whose nick is selected), so InvitationDetailViewModel lists the host twice (runwithu/Presentation/RunningInvitation/ViewMoel/RunningInvitationCreateViewModel.swift)"
        ) {
            #expect(Set(entries.map(\.user_id)).count == entries.count, "an invited runner is listed twice")
        }
        #expect(Set(entries.map(\.user_id)) == [hostId])
        let hostSelf = try await host.request(App.UserEndPoint.readMyProfile, of: App.ProfileUserIdOutput.self)
        #expect(!opened.likes.contains(hostSelf.user_id))
        let accepted = try await host.request(
            App.PostEndPoint.postLike(postId: invitation.post_id, isLike: .init(like_status: true)),
            of: App.PostLikeOutput.self)
        #expect(accepted.like_status)
        let after = try await App.myInvitations(host)
        #expect(after.consented.contains(invitation.post_id) && !after.notConsented.contains(invitation.post_id))

        // RunningEpiloguePostViewModel: the picker offers "내가 받은 - …"; the log carries the invitation's id.
        let pickable = try await host.request(
            App.getPosts(.runwithu_running_inviation, limit: 100_000, next: nil), of: App.GetPostsOutput.self)
        let hostMe = try await host.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        #expect(
            pickable.data.contains { $0.post_id == invitation.post_id && ($0.content1 ?? "").contains(hostMe.user_id) })
        let runLog = try await host.request(
            App.PostEndPoint.posts(
                App.runningLog(
                    title: "초대받아 달린 날", content: "같이 뛰니 훨씬 수월했어요.", info: tomorrow,
                    invitationId: invitation.post_id, files: [])),
            of: App.PostsOutput.self)
        #expect(runLog.content3 == invitation.post_id)

        // The runner leaves the group (`like` false) and unfollows the host (DELETE, no body).
        let left = try await runner.request(
            App.PostEndPoint.postLike(postId: group.post_id, isLike: .init(like_status: false)),
            of: App.PostLikeOutput.self)
        #expect(!left.like_status)
        let unfollowed = try await runner.request(
            App.UserEndPoint.follow(userId: hostId, isFollowing: true), of: App.FollowOutput.self)
        #expect(!unfollowed.following_status)
        let finalProfile = try await runner.request(
            App.UserEndPoint.readAnotherProfile(userId: hostId), of: App.ProfileOutput.self)
        #expect(finalProfile.followers.isEmpty)
        let finalGroup = try await runner.request(
            App.PostEndPoint.getPost(postId: group.post_id), of: App.PostsOutput.self)
        #expect(finalGroup.likes.isEmpty)
    }

    /// NetworkService's token handling: with auto-login a 419 is answered by logging in again (no refresh
    /// route), even after the refresh token expired; uploads and images refresh and resend; without auto-login
    /// the call fails, and the group screen's `tempLoginAPI()` then signs in the demo account.
    @Test func expiredTokensAutoLoginRefreshAndTheDemoAccount() async throws {
        let client = try TwinClient()
        // `AppEnvironment.demoEmail` / `demoPassword`: a demo account signed up by the twin.
        let (_, demoEmail, _) = try await App.join(client)
        let (member, email, _) = try await App.join(client, autoLogin: true, demo: (demoEmail, "run123"))
        let memberId = await member.userId
        let feedQuery = App.getPosts(.runwithu_community_posts_public, limit: 10, next: "")

        // Auto-login on: 419 → POST /v1/users/login with the stored e-mail and password → the same call again.
        try await member.letAccessTokenExpire()
        await member.clearLog()
        _ = try await member.request(feedQuery, of: App.GetPostsOutput.self)
        #expect(await member.sent == ["GET /v1/posts 419", "POST /v1/users/login 200", "GET /v1/posts 200"])

        // An upload: 419 → GET /v1/auth/refresh → the upload again.
        try await member.letAccessTokenExpire()
        await member.clearLog()
        let uploaded = try await member.upload(
            App.PostEndPoint.postImageUpload(files: [TestImages.png]), of: App.ImageUploadOutput.self)
        #expect(uploaded.files.count == 1)
        #expect(
            await member.sent == ["POST /v1/posts/files 419", "GET /v1/auth/refresh 200", "POST /v1/posts/files 200"])

        // An image: 419 → refresh → the GET again.
        let path = try #require(uploaded.files.first)
        try await member.letAccessTokenExpire()
        await member.clearLog()
        #expect(try await member.requestImage(path) == TestImages.png)
        #expect(await member.sent == ["GET /v1/\(path) 419", "GET /v1/auth/refresh 200", "GET /v1/\(path) 200"])

        // Both tokens expired, auto-login on: a model call still works (it never uses the refresh token).
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        await member.clearLog()
        let profile = try await member.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        #expect(profile.user_id == memberId)
        #expect(
            await member.sent == [
                "GET /v1/users/me/profile 419", "POST /v1/users/login 200", "GET /v1/users/me/profile 200",
            ])

        // A later login without auto-login: UserDefaults forgets the e-mail and password. The community tab's
        // 419 is `needToRefreshRefreshToken` (→ `.needToLogin`), one request on the wire.
        try await member.login(email: email, password: "run123", autoLogin: false)
        try await member.letAccessTokenExpire()
        await member.clearLog()
        await #expect(throws: App.NetworkErrors.needToRefreshRefreshToken) {
            try await member.request(feedQuery, of: App.GetPostsOutput.self)
        }
        #expect(await member.sent == ["GET /v1/posts 419"])

        // An upload with both tokens expired: refresh 418 → `needToRefreshRefreshToken`.
        try await member.letRefreshTokenExpire()
        await member.clearLog()
        await #expect(throws: App.NetworkErrors.needToRefreshRefreshToken) {
            try await member.upload(
                App.PostEndPoint.postImageUpload(files: [TestImages.png]), of: App.ImageUploadOutput.self)
        }
        #expect(await member.sent == ["POST /v1/posts/files 419", "GET /v1/auth/refresh 418"])

        // RunningGroupCreateViewModel.createGroup on `needToRefreshRefreshToken`: `tempLoginAPI()`, then again.
        let groupInput = App.runningGroup(
            title: "퇴근런 모임", content: "수요일 저녁 7시 잠실", entryLimit: "5", spot: "잠실 종합운동장",
            level: "초보 (1년 미만 러닝)")
        var created: App.PostsOutput?
        do {
            created = try await member.request(App.PostEndPoint.posts(groupInput), of: App.PostsOutput.self)
        } catch App.NetworkErrors.needToRefreshRefreshToken {
            await member.tempLoginAPI()
            created = try await member.request(App.PostEndPoint.posts(groupInput), of: App.PostsOutput.self)
        }
        let group = try #require(created)
        #expect(group.title == "퇴근런 모임")
        withKnownIssue(
            "Runwithu defect: on an expired session without auto-login, BaseViewModelProtocol.tempLoginAPI() signs in the app's demo account (AppEnvironment.demoEmail), so the member's group is created by the demo account (runwithu/Protocol/BaseViewModel.swift, runwithu/Presentation/RunningGroup/ViewModel/RunningGroupCreateViewModel.swift)"
        ) {
            #expect(group.creator.user_id == memberId, "the group belongs to someone else")
        }

        // The login screen: signing in again restores the member.
        try await member.login(email: email, password: "run123", autoLogin: true)
        let back = try await member.request(App.UserEndPoint.readMyProfile, of: App.ProfileOutput.self)
        #expect(back.user_id == memberId)
    }
}
