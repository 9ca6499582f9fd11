import Foundation
import SNSTestSupport
import Testing

/// mychelin (마이슐랭, github.com/hankyeol-dev/mychelin, Dec 2024 – Mar 2025, G2): a personal restaurant guide on a
/// Naver map. A member writes a "my best" review of a place (a food category, the place's name and address, a star
/// rate, a hashtag, photos and the place's coordinates), finds reviews on the map around them, and groups places in
/// "curations" (posts of category `curations`: a name, a super-category, a colour and a public flag).
///
/// The app has two network layers, both mirrored here, sharing the tokens kept in `UserDefaults`:
/// - Moya (`Projects/Data/Sources/Network/RouterType.swift`, `NetworkProvider.swift`, `Routers/AuthRouter.swift`,
///   `PostRouter.swift`, `SearchRouter.swift`, `UserRouter.swift`, used by `Repositories/AuthRepository.swift`,
///   `PostRepository.swift`, `UserRepository.swift`): paths without `/v1` (the base URL ends in `/v1`), bodies
///   through `taskMapper` (`JSONEncoder` → `JSONSerialization` dictionary → Alamofire's `JSONEncoding.default`),
///   queries through `URLEncoding.queryString` (sorted keys, `next=` when empty), and on every request the
///   secret key, `Content-Type: application/json` (GETs too) and `ProductId`. `validationType` is `.successCodes`;
///   a 419 calls `GET /v1/auth/refresh` (the expired `Authorization` and `Refresh`), stores **both** tokens and
///   sends the request again through the same function; 401/418 end as `allTokensExpired`.
/// - The async `RouterProtocol` layer (`Network/Provider/RouterProtocol.swift`, `NetworkService.swift`,
///   `Repositories/DefaultRepositoryType.swift`, with `AsyncAuthRouter`, `MockPostRouter` and `MockUserRouter`): the
///   router types of the tab bar's screens (home, "my best" writing, profile). `URLComponents.queryItems` in the
///   order written, bodies as `toJSON` (`JSONEncoder` with `.prettyPrinted`, `Domain/Sources/Utils/+Encodable.swift`),
///   a hand-made multipart form for uploads (`asMultipartFormDatas`: boundary `UUID().uuidString`, one `files` part
///   per photo named `"\(Int(Date().timeIntervalSince1970)).jpeg"`, declared `image/jpeg`), only 200 accepted.
///   On 419 `DefaultRepositoryType.request` logs in the **demo account** (`env.tempEmail`/`env.tempPW`) and sends
///   the request again with the demo's token.
///
/// Not in the repository (git-ignored `ENV` folders): the header names and values (`headerConfig`,
/// `headerConfigValue`), the base URL and the demo account, and the repositories behind the tab bar
/// (`MockPostRepository`, `MockUserRepository`, split off into ignored files on 2025-02-18). The twin uses the last
/// committed versions of those repositories (`Projects/Data/Sources/Repositories/PostRepository.swift` and
/// `UserRepository.swift` before commit f86798b), the header spellings `SeSACKey`, `Authorization`, `ProductId`,
/// `Refresh` and `Content-Type`, the stack's registered `ProductId` for the app's hard-coded one, and a demo account
/// of its own. Answers are decoded with a plain `JSONDecoder()`; dates stay strings.
///
/// Departures: photos are the PNG test image declared as the app's `image/jpeg`; places are random points instead of
/// the Naver local search's pick and the device's location; the home list is paged past its first page (the
/// reactor never updates its `next`); `NetworkProvider`'s unbounded re-request after a refresh stops after three
/// rounds. Router cases no screen reaches are not mirrored: `PostRouter` `.uploadFiles`, `.getPostsByUser`,
/// `.getLikedPosts`, `.getLiked2Posts`, `.comments`, `.postLike`, `.postLike2`; `UserRouter` `.meEdit`,
/// `.meProfileImageEdit`, `.search`; `AuthRouter` `.withdraw`; `AsyncAuthRouter` `.refreshToken`.
enum MychelinTwin {
    // MARK: Models (Projects/Data/Sources/DTOs/AuthDTO.swift)

    struct JoinInputType: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
    }

    struct ValidationEmailInputType: Encodable, Sendable { let email: String }

    struct LoginInputType: Encodable, Sendable {
        let email: String
        let password: String
    }

    struct JoinOutputType: Decodable, Sendable {
        let userId: String
        enum CodingKeys: String, CodingKey { case userId = "user_id" }
    }

    struct LoginOutputType: Decodable, Sendable {
        let userId: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case email, nick, profileImage, accessToken, refreshToken
        }
    }

    struct TokenOutputType: Decodable, Sendable {
        let accessToken: String
        let refreshToken: String
    }

    // Projects/Data/Sources/DTOs/CommonDTO.swift
    struct CommonOutputType: Decodable, Sendable { let message: String }

    // MARK: Models (Projects/Data/Sources/DTOs/PostDTO.swift)

    /// The post body; `logitude` is the app's spelling. `nil` fields are left out by the synthesized encoder.
    struct PostInputType: Encodable, Sendable {
        var category: String
        var title: String
        var price: Int? = nil
        var content: String
        var content1: String? = nil
        var content2: String? = nil
        var content3: String? = nil
        var content4: String? = nil
        var content5: String? = nil
        var files: [String]? = nil
        var logitude: Float? = nil
        var latitude: Float? = nil
    }

    struct GetPostQueryType: Sendable {
        let next: String
        let limit: Int = 10
        let category: String
    }

    struct PostsFileOutputType: Decodable, Sendable { let files: [String] }

    struct PostUploadOutputType: Decodable, Sendable {
        let postId: String
        enum CodingKeys: String, CodingKey { case postId = "post_id" }
    }

    struct PostOutputType: Decodable, Sendable {
        let postId: String
        let category: String
        let title: String
        let price: Int?
        let content: String
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let createdAt: String
        let creator: MinProfileOutputType
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let buyers: [String]
        let hashTags: [String]
        let comments: [CommentOutputType]
        let geolocation: GEOLocation
        let distance: Double?
        enum CodingKeys: String, CodingKey {
            case postId = "post_id"
            case category, title, price, content, content1, content2, content3, content4, content5, createdAt
            case creator, files, likes, likes2, buyers, hashTags, comments, geolocation, distance
        }
    }

    struct PostListOutputType: Decodable, Sendable {
        var data: [PostOutputType]
        let next: String
        enum CodingKeys: String, CodingKey {
            case data
            case next = "next_cursor"
        }
    }

    struct LocationSearchListOutput: Decodable, Sendable { let data: [PostOutputType] }

    struct CommentOutputType: Decodable, Sendable {
        let commentId: String
        let content: String
        let createdAt: String
        let creator: MinProfileOutputType
        enum CodingKeys: String, CodingKey {
            case commentId = "comment_id"
            case content, createdAt, creator
        }
    }

    struct CommentListOutput: Decodable, Sendable { let comments: [CommentOutputType] }

    // MARK: Models (Projects/Data/Sources/DTOs/UserDTO.swift, SearchDTO.swift)

    struct ProfileOutputType: Decodable, Sendable {
        let userId: String
        let email: String?
        let nick: String
        let profileImage: String?
        let phoneNum: String?
        let info1: String?
        let info2: String?
        let info3: String?
        let info4: String?
        let info5: String?
        let followers: [MinProfileOutputType]
        let following: [MinProfileOutputType]
        let posts: [String]
        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case email, nick, profileImage, phoneNum, info1, info2, info3, info4, info5, followers, following, posts
        }
    }

    struct MinProfileOutputType: Decodable, Sendable {
        let userId: String
        let nick: String
        let profileImage: String?
        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nick, profileImage
        }
    }

    struct FollowOutputType: Decodable, Sendable {
        let me: String
        let opponent: String
        let status: Bool
        enum CodingKeys: String, CodingKey {
            case me = "nick"
            case opponent = "opponent_nick"
            case status = "following_status"
        }
    }

    struct SearchQueryType: Sendable {
        let next: String
        let limit: Int = 10
        let category: String
        let hashTag: String
    }

    /// `maxDistance` defaults to 200, `order_by=distance`, `sort_by=desc` (farthest first).
    struct SearchGEOQueryType: Sendable {
        let category: String
        let longitude: Double
        let latitude: Double
        var maxDistance: Int = 200
        var orderBy = "distance"
        var sortBy = "desc"
    }

    struct GEOLocation: Codable, Sendable {
        let longitude: Double
        let latitude: Double
    }

    struct SearchGEOOutputType: Decodable, Sendable { let data: [PostOutputType] }

    // MARK: View objects (PostDTO.swift `toGetPostVO`, `toGetCurationOutputVO`)

    struct GetPostVO: Sendable {
        let postId: String
        let category: String
        let title: String
        let likes: Int
        let address: String
        let rate: Double
        let creatorId: String
        let postLat: Double
        let postLng: Double
    }

    /// `toGetPostVO` reads `rate: Double(content2!) ?? 0.0`: a post without `content2` crashes the app. The twin
    /// records that as a failed expectation instead.
    static func toGetPostVO(_ post: PostOutputType, sourceLocation: SourceLocation = #_sourceLocation) -> GetPostVO {
        #expect(
            post.content2 != nil, "toGetPostVO force-unwraps content2 (\(post.postId))", sourceLocation: sourceLocation)
        return GetPostVO(
            postId: post.postId, category: post.category, title: post.title, likes: post.likes.count,
            address: post.content1 ?? "", rate: Double(post.content2 ?? "") ?? 0.0, creatorId: post.creator.userId,
            postLat: post.geolocation.latitude, postLng: post.geolocation.longitude)
    }

    struct GetCurationOutputVO: Sendable {
        let curationId: String
        let curationName: String
        let curationFirstCategory: String
        let curationColorIndex: Int
        let curationMakePublic: Int
    }

    /// `toGetCurationOutputVO`: the name is read from `category`, the super-category from `title`.
    static func toGetCurationOutputVO(_ post: PostOutputType) -> GetCurationOutputVO {
        GetCurationOutputVO(
            curationId: post.postId, curationName: post.category, curationFirstCategory: post.title,
            curationColorIndex: post.content1.flatMap { Int($0) } ?? 0,
            curationMakePublic: post.content2.flatMap { Int($0) } ?? 0)
    }

    // MARK: Router

    enum Router {
        // headerConfig / headerConfigValue (git-ignored; spellings assumed, see the type's comment)
        static let secretKey = "SeSACKey"
        static let authKey = "Authorization"
        static let contentKey = "Content-Type"
        static let productIdKey = "ProductId"
        static let refreshTokenKey = "Refresh"
        static let contentJson = "application/json"
        static var productId: String { TestEnvironment.productId }

        /// RouterType.swift `generateHeaderFields(needToken, .base, fields)`.
        static func moyaHeaders(key: String, token: String?, _ fields: [(String, String)] = [])
            -> [(String, String)]
        {
            var headers = [(secretKey, key)]
            if let token { headers.append((authKey, token)) }
            headers.append((contentKey, contentJson))
            return headers + fields
        }

        static func withProductId(key: String, token: String?) -> [(String, String)] {
            moyaHeaders(key: key, token: token, [(productIdKey, productId)])
        }

        /// `taskMapper` + `JSONEncoding.default`: JSONEncoder, then a dictionary written by JSONSerialization.
        static func moyaJSON(_ input: some Encodable) throws -> Data {
            let encoded = try JSONEncoder().encode(input)
            let dictionary = (try JSONSerialization.jsonObject(with: encoded) as? [String: Any]) ?? [:]
            return try JSONSerialization.data(withJSONObject: dictionary)
        }

        /// `Encodable.toJSON` (Domain/Sources/Utils/+Encodable.swift).
        static func toJSON(_ input: some Encodable) throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = .prettyPrinted
            return try encoder.encode(input)
        }

        // AuthRouter.swift: `.validEmail` carries no ProductId.
        static func validEmail(_ input: ValidationEmailInputType, key: String) throws -> TwinRequest {
            TwinRequest(
                "POST", "/v1/users/validation/email", headers: moyaHeaders(key: key, token: nil),
                body: try moyaJSON(input))
        }

        static func join(_ input: JoinInputType, key: String) throws -> TwinRequest {
            TwinRequest(
                "POST", "/v1/users/join", headers: withProductId(key: key, token: nil), body: try moyaJSON(input))
        }

        static func login(_ input: LoginInputType, key: String) throws -> TwinRequest {
            TwinRequest(
                "POST", "/v1/users/login", headers: withProductId(key: key, token: nil), body: try moyaJSON(input))
        }

        /// `.refreshToken`: needToken (the expired access token), ProductId and `Refresh`.
        static func refreshToken(access: String, refresh: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/auth/refresh",
                headers: moyaHeaders(key: key, token: access, [(productIdKey, productId), (refreshTokenKey, refresh)]))
        }

        // PostRouter.swift
        static func uploadPost(_ input: PostInputType, token: String, key: String) throws -> TwinRequest {
            TwinRequest("POST", "/v1/posts", headers: withProductId(key: key, token: token), body: try moyaJSON(input))
        }

        static func getPost(_ postId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/posts/\(postId)", headers: withProductId(key: key, token: token))
        }

        /// `.getPosts`: `category=…&limit=10&next=` (sorted by Alamofire).
        static func getPosts(_ query: GetPostQueryType, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts",
                query: TwinQuery.alamofire([
                    ("next", query.next), ("limit", String(query.limit)), ("category", query.category),
                ]),
                headers: withProductId(key: key, token: token))
        }

        // SearchRouter.swift `.searchByGeoLocation`
        static func searchByGeoLocation(_ query: SearchGEOQueryType, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/geolocation",
                query: TwinQuery.alamofire([
                    ("category", query.category), ("longitude", String(query.longitude)),
                    ("latitude", String(query.latitude)), ("maxDistance", String(query.maxDistance)),
                    ("order_by", query.orderBy), ("sort_by", query.sortBy),
                ]),
                headers: withProductId(key: key, token: token))
        }

        // UserRouter.swift (`.requestPlain`: no body, the JSON Content-Type all the same)
        static func me(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/me/profile", headers: withProductId(key: key, token: token))
        }

        static func other(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/\(userId)/profile", headers: withProductId(key: key, token: token))
        }

        static func follow(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("POST", "/v1/follow/\(userId)", headers: withProductId(key: key, token: token))
        }

        static func unFollow(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/follow/\(userId)", headers: withProductId(key: key, token: token))
        }

        // MARK: The async layer (RouterProtocol.setHeader(.request / .upload, needToken:, needProductId: true))

        static func asyncHeaders(key: String, token: String?, contentType: String = contentJson)
            -> [(String, String)]
        {
            var headers = [(secretKey, key), (contentKey, contentType)]
            if let token { headers.append((authKey, token)) }
            return headers + [(productIdKey, productId)]
        }

        /// AsyncAuthRouter `.login`, what `DefaultRepositoryType` sends for the demo account.
        static func asyncLogin(_ input: LoginInputType, key: String) throws -> TwinRequest {
            TwinRequest("POST", "/v1/users/login", headers: asyncHeaders(key: key, token: nil), body: try toJSON(input))
        }

        /// MockPostRouter `.uploadFiles` with `asMultipartFormDatas(boundary:files:content: nil)`.
        static func uploadFiles(_ photos: [[UInt8]], token: String, key: String, now: Date = Date()) -> TwinRequest {
            var form = TwinMultipart()
            form.boundary = UUID().uuidString
            for photo in photos {
                form.file(
                    "files", filename: "\(Int(now.timeIntervalSince1970)).jpeg", mimeType: "image/jpeg", bytes: photo)
            }
            return TwinRequest(
                "POST", "/v1/posts/files",
                headers: asyncHeaders(
                    key: key, token: token, contentType: "multipart/form-data; boundary=\(form.boundary)"),
                body: form.encoded())
        }

        static func asyncUploadPost(_ input: PostInputType, token: String, key: String) throws -> TwinRequest {
            TwinRequest("POST", "/v1/posts", headers: asyncHeaders(key: key, token: token), body: try toJSON(input))
        }

        static func asyncGetPost(_ postId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/posts/\(postId)", headers: asyncHeaders(key: key, token: token))
        }

        /// MockPostRouter `.getPostComments`: the post's own path, decoded as `CommentListOutput`.
        static func asyncGetPostComments(_ postId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/posts/\(postId)", headers: asyncHeaders(key: key, token: token))
        }

        /// MockPostRouter `.getPosts`: `next=…&limit=10` (the `category` item is commented out).
        static func asyncGetPosts(_ query: GetPostQueryType, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts",
                query: TwinQuery.urlComponents([("next", query.next), ("limit", String(query.limit))]),
                headers: asyncHeaders(key: key, token: token))
        }

        static func asyncGetPostsByHashtag(_ query: SearchQueryType, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/hashtags",
                query: TwinQuery.urlComponents([
                    ("next", query.next), ("limit", String(query.limit)), ("category", query.category),
                    ("hashTag", query.hashTag),
                ]),
                headers: asyncHeaders(key: key, token: token))
        }

        /// MockPostRouter `.getPostsByLocation` (the `category` item is commented out).
        static func asyncGetPostsByLocation(_ query: SearchGEOQueryType, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/geolocation",
                query: TwinQuery.urlComponents([
                    ("longitude", String(query.longitude)), ("latitude", String(query.latitude)),
                    ("maxDistance", String(query.maxDistance)), ("order_by", query.orderBy), ("sort_by", query.sortBy),
                ]),
                headers: asyncHeaders(key: key, token: token))
        }

        // MockUserRouter `.me`
        static func asyncMe(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/me/profile", headers: asyncHeaders(key: key, token: token))
        }

        /// CommonUI `UIImageView.setImage`: `env.baseURL + "/" + path` (so `/v1//uploads/…`), with the headers of
        /// `KingfisherManager.setImageRequestHeader` (no Content-Type).
        static func image(_ path: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/" + path, headers: [(productIdKey, productId), (secretKey, key), (authKey, token)])
        }
    }

    // MARK: Session (UserDefaultsProvider + both layers' token handling)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        /// `env.tempEmail` / `env.tempPW`: the account `DefaultRepositoryType` signs in on a 419.
        private(set) var demoEmail: String?
        private(set) var demoPassword: String?
        private(set) var userId = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var isLogined = false
        private(set) var refreshes = 0
        private(set) var lastRefreshStatus: Int?
        private(set) var demoLogins = 0

        init(client: TwinClient, email: String, password: String) {
            self.client = client
            self.email = email
            self.password = password
        }

        var key: String { client.apiKey }

        func setDemoAccount(email: String, password: String) {
            demoEmail = email
            demoPassword = password
        }

        /// JoinReactor (`AuthRepository.join`: stores `user_id` only), then LoginReactor.
        static func join(_ client: TwinClient, nick: String = TestEnvironment.unique("mych")) async throws -> Session {
            let email = "\(nick)@example.com"
            let session = Session(client: client, email: email, password: "mychelin1")
            let joined = try await client.call(
                try Router.join(.init(email: email, password: "mychelin1", nick: nick), key: client.apiKey),
                as: JoinOutputType.self)
            await session.stored(userId: joined.userId)
            let login = try await session.login()
            #expect(login.userId == joined.userId && login.nick == nick)
            return session
        }

        private func stored(userId: String) { self.userId = userId }

        /// `AuthRepository.login`: isLogined, user id and both tokens into UserDefaults.
        @discardableResult
        func login() async throws -> LoginOutputType {
            let output = try await client.call(
                try Router.login(.init(email: email, password: password), key: key), as: LoginOutputType.self)
            isLogined = true
            userId = output.userId
            accessToken = output.accessToken
            refreshToken = output.refreshToken
            return output
        }

        /// `NetworkProvider.request`: a 419 refreshes (both tokens stored) and the request goes through the same
        /// function again. The app recurses without a bound; the twin stops after three rounds.
        func moya(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            var reply = try await client.send(try build(accessToken))
            var rounds = 0
            while reply.status == 419, rounds < 3 {
                rounds += 1
                let renewed = try await client.send(
                    Router.refreshToken(access: accessToken, refresh: refreshToken, key: key))
                lastRefreshStatus = renewed.status
                guard (200..<300).contains(renewed.status),
                    let token = try? client.decode(TokenOutputType.self, from: renewed)
                else { return reply }
                accessToken = token.accessToken
                refreshToken = token.refreshToken
                refreshes += 1
                reply = try await client.send(try build(accessToken))
            }
            return reply
        }

        func moyaCall<Model: Decodable>(
            _ type: Model.Type, status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await moya(build)
            #expect(reply.status == status, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// `DefaultRepositoryType.request`: only 200 passes; a 419 logs in the demo account (tokens stored, the user
        /// id kept) and sends the request again through the same function; a failed login gives `invalidAccessToken`.
        func async(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            let reply = try await client.send(try build(accessToken))
            guard reply.status == 419, demoLogins < 3 else { return reply }
            guard let demoEmail, let demoPassword else { return reply }
            let login = try await client.send(
                try Router.asyncLogin(.init(email: demoEmail, password: demoPassword), key: key))
            guard login.status == 200, let output = try? client.decode(LoginOutputType.self, from: login) else {
                isLogined = false
                return reply
            }
            isLogined = true
            accessToken = output.accessToken
            refreshToken = output.refreshToken
            demoLogins += 1
            return try await async(build)
        }

        func asyncCall<Model: Decodable>(
            _ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await async(build)
            #expect(reply.status == 200, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        // MARK: Time passing (test side only)

        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// A place of the test's own, far from the other tests' places (Float precision, as `PostInputType` sends it).
    static func randomPlace() -> (latitude: Float, longitude: Float) {
        (Float(35.0 + Double.random(in: 0..<1)), Float(128.0 + Double.random(in: 0..<1)))
    }

    /// What the server reads from the body's Float: `JSONEncoder` writes its shortest description.
    static func wire(_ value: Float) -> Double { Double("\(value)") ?? 0 }
}

@Suite("mychelin twin")
struct MychelinTwinTests {
    typealias App = MychelinTwin

    /// Sign-up (email check without `ProductId`, join read as `{user_id}` only, login), the map screen's first
    /// search, the writing screen's curation picker, a new curation (category `curations`), the picker again and
    /// the curation's detail.
    @Test func joinTheMapAndACuration() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let nick = TestEnvironment.unique("mych")
        let email = "\(nick)@example.com"

        // First launch: SceneDelegate opens the tab bar at once, and the profile tab's MockUserRouter `.me` goes out
        // with the empty stored token: 401 → `invalidAccessToken`; no screen leads to sign-in from there.
        let fresh = App.Session(client: client, email: email, password: "mychelin1")
        let launch = try await fresh.async { App.Router.asyncMe(token: $0, key: key) }
        #expect(launch.status == 401, "\(launch.text)")
        _ = try client.decode(App.CommonOutputType.self, from: launch)
        let launchLogins = await fresh.demoLogins
        #expect(launchLogins == 0, "a 401 is not a 419: no demo login")

        // JoinVC: the email check (AuthRouter `.validEmail`: key and Content-Type only), then join and login.
        let free = try await client.call(
            try App.Router.validEmail(.init(email: email), key: key), as: App.CommonOutputType.self)
        #expect(!free.message.isEmpty)
        let me = try await App.Session.join(client, nick: nick)
        let myId = await me.userId
        let taken = try await client.send(try App.Router.validEmail(.init(email: email), key: key))
        #expect(taken.status == 409, "\(taken.text)")
        _ = try client.decode(App.CommonOutputType.self, from: taken)

        // MapVC: `fetchPosts("", location)` → SearchRouter `.searchByGeoLocation` with maxDistance 150.
        let place = App.randomPlace()
        let around = try await me.moyaCall(App.SearchGEOOutputType.self) {
            App.Router.searchByGeoLocation(
                .init(
                    category: "", longitude: App.wire(place.longitude), latitude: App.wire(place.latitude),
                    maxDistance: 150),
                token: $0, key: key)
        }
        #expect(around.data.isEmpty, "\(around.data.map(\.postId))")

        // WritePostVC: `getCurations()` — the first page of `curations`, kept when the creator is me.
        let before = try await me.moyaCall(App.PostListOutputType.self) {
            App.Router.getPosts(.init(next: "", category: "curations"), token: $0, key: key)
        }
        #expect(before.data.filter { $0.creator.userId == myId }.isEmpty)

        // WritePostCurationVC: `createCuration` (title = name, content = super-category, content1 = colour index,
        // content2 = public flag, inverted by the reactor: public → "0"), answer read as PostOutputType.
        let name = TestEnvironment.unique("성수 맛집 ")
        let created = try await me.moyaCall(App.PostOutputType.self) {
            try App.Router.uploadPost(
                .init(category: "curations", title: name, content: "음식점", content1: "2", content2: "0"), token: $0,
                key: key)
        }
        #expect(created.category == "curations" && created.title == name && created.content == "음식점")
        #expect(created.content1 == "2" && created.content2 == "0" && created.creator.userId == myId)
        #expect(created.geolocation.latitude == 0 && created.geolocation.longitude == 0 && created.distance == nil)
        #expect(created.files.isEmpty && created.comments.isEmpty && created.price == nil)

        // The picker again: the curation's title is listed (`vo.data.map { $0.title }`).
        let after = try await me.moyaCall(App.PostListOutputType.self) {
            App.Router.getPosts(.init(next: "", category: "curations"), token: $0, key: key)
        }
        let mine = after.data.filter { $0.creator.userId == myId }
        #expect(mine.map { App.toGetPostVO($0).title } == [name])

        // CurationDetailVC: `getCuration` (GET the post), then its posts by `category = vo.curationName`.
        let detail = try await me.moyaCall(App.PostOutputType.self) {
            App.Router.getPost(created.postId, token: $0, key: key)
        }
        let curation = App.toGetCurationOutputVO(detail)
        #expect(curation.curationId == created.postId && curation.curationColorIndex == 2)
        withKnownIssue(
            "toGetCurationOutputVO reads the name from `category` (Projects/Data/Sources/DTOs/PostDTO.swift)"
        ) {
            #expect(curation.curationName == name)
        }
        #expect(curation.curationName == "curations" && curation.curationFirstCategory == name)
        let posts = try await me.moyaCall(App.PostListOutputType.self) {
            App.Router.getPosts(.init(next: "", category: curation.curationName), token: $0, key: key)
        }
        withKnownIssue(
            "it lists `curations`, not the curation (Projects/Features/Post/Sources/Reactor/CurationDetailReactor.swift)"
        ) {
            #expect(!posts.data.contains { $0.postId == created.postId })
        }
    }

    /// "My best" writing as the tab bar's repositories send it (profile read, photo upload, a review with the
    /// misspelt `logitude`), eleven more reviews, the home list paged to "0", the detail and its photo, the map
    /// (both layers), the hashtag search and the detail's comments.
    @Test func reviewsOnTheHomeListTheDetailAndTheMap() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let me = try await App.Session.join(client)
        let myId = await me.userId

        // WriteMyBestVC didLoad: MockUserRouter `.me` for the nickname.
        let profile = try await me.asyncCall(App.ProfileOutputType.self) { App.Router.asyncMe(token: $0, key: key) }
        #expect(profile.userId == myId && profile.posts.isEmpty && profile.followers.isEmpty)

        // uploadImages, then uploadPost (content1 address, content2 rate, content3 hashtag, the place).
        let uploaded = try await me.asyncCall(App.PostsFileOutputType.self) {
            App.Router.uploadFiles([TestImages.png], token: $0, key: key)
        }
        #expect(uploaded.files.count == 1 && uploaded.files[0].hasPrefix("/uploads/posts/"), "\(uploaded.files)")
        let place = App.randomPlace()
        let tag = TestEnvironment.unique("갈비 ").replacingOccurrences(of: " ", with: "_")
        let review = App.PostInputType(
            category: "koreanBbq", title: "마포 숯불갈비", content: "고기가 부드러워요", content1: "서울 마포구 도화동 1",
            content2: String(4.5), content3: tag, files: uploaded.files, logitude: place.longitude,
            latitude: place.latitude)
        let first = try await me.asyncCall(App.PostUploadOutputType.self) {
            try App.Router.asyncUploadPost(review, token: $0, key: key)
        }

        // Eleven text reviews, each in its own category and place.
        var written = [first.postId]
        for index in 1...11 {
            let spot = App.randomPlace()
            let more = App.PostInputType(
                category: index.isMultiple(of: 2) ? "coffee" : "ramen", title: "가게 \(index)", content: "또 갈래요",
                content1: "서울 성동구 \(index)", content2: String(Double(index % 5) + 0.5), content3: "",
                logitude: spot.longitude, latitude: spot.latitude)
            let output = try await me.asyncCall(App.PostUploadOutputType.self) {
                try App.Router.asyncUploadPost(more, token: $0, key: key)
            }
            written.append(output.postId)
        }

        // HomeVC: MockPostRouter `.getPosts` (`next=&limit=10`, no category). The reactor asks the first page
        // only; the twin sends the same request with each `next_cursor` (departure: no screen pages yet).
        var shown: [String] = []
        var cursor = ""
        var pages = 0
        repeat {
            let query = App.GetPostQueryType(next: cursor, category: "")
            let page = try await me.asyncCall(App.PostListOutputType.self) {
                App.Router.asyncGetPosts(query, token: $0, key: key)
            }
            #expect(page.data.count <= 10)
            for post in page.data where post.creator.userId == myId { _ = App.toGetPostVO(post) }
            shown += page.data.map(\.postId)
            cursor = page.next
            pages += 1
        } while cursor != "0" && pages < 100
        #expect(cursor == "0")
        #expect(Set(shown).count == shown.count, "a review was listed twice")
        #expect(shown.filter { written.contains($0) } == written.reversed(), "my reviews, newest first")

        // PostDetailVC: MockPostRouter `.getPost` → toGetPostVO; Kingfisher loads the photo.
        let detail = try await me.asyncCall(App.PostOutputType.self) {
            App.Router.asyncGetPost(first.postId, token: $0, key: key)
        }
        let vo = App.toGetPostVO(detail)
        #expect(vo.category == "koreanBbq" && vo.rate == 4.5 && vo.address == "서울 마포구 도화동 1")
        #expect(detail.content3 == tag && detail.files == uploaded.files && detail.distance == nil)
        #expect(abs(vo.postLat - App.wire(place.latitude)) < 1e-9 && abs(vo.postLng - App.wire(place.longitude)) < 1e-9)
        let accessToken = await me.accessToken
        let photo = try await client.send(App.Router.image(detail.files[0], token: accessToken, key: key))
        #expect(photo.status == 200 && photo.body == TestImages.png, "\(photo.status)")
        let comments = try await me.asyncCall(App.CommentListOutput.self) {
            App.Router.asyncGetPostComments(first.postId, token: $0, key: key)
        }
        #expect(comments.comments.isEmpty)

        // MapVC (Moya): farthest first within 150 m of the place; the async layer's nearby list (100 m).
        let (latitude, longitude) = (App.wire(place.latitude), App.wire(place.longitude))
        let map = try await me.moyaCall(App.SearchGEOOutputType.self) {
            App.Router.searchByGeoLocation(
                .init(category: "", longitude: longitude, latitude: latitude, maxDistance: 150), token: $0, key: key)
        }
        #expect(map.data.map(\.postId) == [first.postId])
        #expect(map.data.first.flatMap(\.distance).map { $0 < 1 } == true)
        _ = map.data.map { App.toGetPostVO($0) }
        let nearby = try await me.asyncCall(App.LocationSearchListOutput.self) {
            App.Router.asyncGetPostsByLocation(
                .init(category: "", longitude: longitude, latitude: latitude, maxDistance: 100), token: $0, key: key)
        }
        #expect(nearby.data.map(\.postId) == [first.postId])

        // The hashtag search (`hashtag.mapToSnakecase()`): the app keeps the tag in content3, never in content.
        let found = try await me.asyncCall(App.PostListOutputType.self) {
            App.Router.asyncGetPostsByHashtag(
                .init(next: "", category: "koreanBbq", hashTag: tag.split(separator: " ").joined(separator: "_")),
                token: $0, key: key)
        }
        withKnownIssue(
            "the hashtag is sent in content3, never in content (Projects/Data/Sources/Repositories/PostRepository.swift)"
        ) {
            #expect(found.data.map(\.postId) == [first.postId])
        }
        #expect(found.next == "0")
    }

    /// Follow and another member's profile, a 419 through the Moya layer (refresh with `Refresh`, both tokens
    /// stored, one resend), a 419 through the async layer (the demo account signs in), login again, and a refresh
    /// token that has expired (418).
    @Test func followTokensAndTheDemoAccount() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let me = try await App.Session.join(client)
        let other = try await App.Session.join(client)
        let demo = try await App.Session.join(client, nick: TestEnvironment.unique("demo"))
        let (myId, otherId, demoId) = (await me.userId, await other.userId, await demo.userId)
        await me.setDemoAccount(email: demo.email, password: demo.password)

        // UserRepository.follow(isFollow: true) — POST with the JSON Content-Type and no body.
        let followed = try await me.moyaCall(App.FollowOutputType.self) {
            App.Router.follow(otherId, token: $0, key: key)
        }
        #expect(followed.status && followed.opponent == other.email.replacingOccurrences(of: "@example.com", with: ""))
        let theirs = try await me.moyaCall(App.ProfileOutputType.self) {
            App.Router.other(otherId, token: $0, key: key)
        }
        #expect(theirs.userId == otherId && theirs.followers.map(\.userId) == [myId])
        let mine = try await me.moyaCall(App.ProfileOutputType.self) { App.Router.me(token: $0, key: key) }
        #expect(mine.following.map(\.userId) == [otherId] && mine.email == me.email)
        let unfollowed = try await me.moyaCall(App.FollowOutputType.self) {
            App.Router.unFollow(otherId, token: $0, key: key)
        }
        #expect(!unfollowed.status)

        // 419 on a Moya call: refresh (expired Authorization + Refresh), both tokens stored, the profile again.
        try await me.letAccessTokenExpire()
        let oldRefresh = await me.refreshToken
        let reread = try await me.moyaCall(App.ProfileOutputType.self) { App.Router.me(token: $0, key: key) }
        #expect(reread.userId == myId)
        let (refreshes, refreshStatus, newRefresh) = (
            await me.refreshes, await me.lastRefreshStatus, await me.refreshToken
        )
        #expect(refreshes == 1 && refreshStatus == 200)
        #expect(newRefresh != oldRefresh, "G2 rotates the refresh token and the app stores it")
        let next = try await me.moyaCall(App.ProfileOutputType.self) { App.Router.me(token: $0, key: key) }
        let refreshesAfter = await me.refreshes
        #expect(next.userId == myId && refreshesAfter == 1, "the stored token works: no second refresh")

        // 419 on an async call (the profile tab's MockUserRouter `.me`): the demo account signs in instead.
        try await me.letAccessTokenExpire()
        let tab = try await me.asyncCall(App.ProfileOutputType.self) { App.Router.asyncMe(token: $0, key: key) }
        let (demoLogins, refreshesNow, keptId) = (await me.demoLogins, await me.refreshes, await me.userId)
        #expect(demoLogins == 1 && refreshesNow == 1)
        withKnownIssue(
            "a 419 signs in the demo account (Projects/Data/Sources/Repositories/DefaultRepositoryType.swift)"
        ) {
            #expect(tab.userId == myId)
        }
        #expect(tab.userId == demoId && keptId == myId)

        // The "my best" tab goes on with the demo's tokens: the next review is written by the demo account.
        let place = App.randomPlace()
        let review = App.PostInputType(
            category: "sushi", title: "스시 오마카세", content: "신선해요", content1: "서울 강남구 1", content2: "5.0",
            content3: "", logitude: place.longitude, latitude: place.latitude)
        let written = try await me.asyncCall(App.PostUploadOutputType.self) {
            try App.Router.asyncUploadPost(review, token: $0, key: key)
        }
        let post = try await me.asyncCall(App.PostOutputType.self) {
            App.Router.asyncGetPost(written.postId, token: $0, key: key)
        }
        withKnownIssue("the review is the demo's (Projects/Data/Sources/Repositories/DefaultRepositoryType.swift)") {
            #expect(post.creator.userId == myId)
        }
        #expect(post.creator.userId == demoId && App.toGetPostVO(post).rate == 5.0)

        // LoginVC again; the refresh token's 14 days pass: refresh 418 → allTokensExpired, the 419 stays.
        try await me.login()
        try await me.letRefreshTokenExpire()
        try await me.letAccessTokenExpire()
        let lost = try await me.moya { App.Router.me(token: $0, key: key) }
        #expect(lost.status == 419, "\(lost.text)")
        let finalRefreshStatus = await me.lastRefreshStatus
        #expect(finalRefreshStatus == 418)
        _ = try client.decode(App.CommonOutputType.self, from: lost)
    }
}
