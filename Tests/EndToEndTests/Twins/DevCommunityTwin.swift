import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// DevCommunity (데브커뮤니티, github.com/Oreo-Mcflurry/DevCommnunity, May 2024, G1): members look for teammates
/// for hackathons and developer events. The events (posts with `product_id` "DevCommunity", written by the
/// service's operator, not by the app) are listed by month; an event's page lists its recruiting posts
/// (`product_id` "DevCommunity" + the event's `post_id`), written in the app with the wanted roles as hashtags
/// (`#iOS;2 #백엔드;1 `). Applying is a comment `"nick;introduction;role"`; hearts and bookmarks are `like`; a
/// 100-won "remove ads" purchase goes through the iamport SDK.
///
/// The app's network layer: Moya `TargetType` routers (`DevCommunity/Service/Network/Auth/AuthRouter.swift`,
/// `Post/PostRouter.swift`, `Pay/PayRouter.swift`, `Profile/ProfileRouter.swift`, header names in
/// `Base/HTTPHeader.swift`: `Authorization`, `SesacKey`, `Refresh`) with the access token read from `UserDefaults`
/// when the request is built. Query strings are `URLEncoding` of `[String: String]` (keys sorted). Three GET
/// routes (`refresh`, `withdraw`, my profile) pass their own header dictionary as `.requestParameters(...,
/// encoding: URLEncoding.default)`, so their tokens and key are also sent in the query string. JSON bodies are
/// Moya's `.requestJSONEncodable` (a plain `JSONEncoder()`), and answers are read with `Response.map(T.self)` (a
/// plain `JSONDecoder()`, dates stay strings) in `Base/BaseRequestManager.swift`; the payment's answer is read by
/// status only (`PayValidationResultModel` is never used). Lists are one request with `limit=1000`; the app never
/// reads `next_cursor`. `Extension/Alamofire+Interceptor+Extension.swift` sets `validationType = .successCodes`,
/// and `Plugin/Interceptor/Interceptor.swift` is meant to refresh, but its guard
/// `statusCode != 401 || statusCode != 418` is always true: nothing is ever retried or refreshed. The only refresh
/// is the launch screen's (`Scene/InitialScene/ViewModel/InitialViewModel.swift`): 200 → home, anything else →
/// sign-in. Images are loaded by Kingfisher from `{base}/v1/{file}` with
/// `Authorization`, `SesacKey` and `Content-Type: application/json` (`Extension/KingFisher+Extension.swift`).
///
/// Mirrored models: `DevCommunity/Model/Decoding/*.swift` and `DevCommunity/Model/Encoding/*.swift`,
/// `Model/Codable/ProfileEditRequestModel.swift`. Requests as built by `PartyPostAddScene/View/PartyPostAddView.swift`
/// (the recruiting post), `PartyJoinView/View/PartyJoinView.swift` (the application), the view models under
/// `DevCommunity/Scene/`, and `IamportPaymentViewScene/ViewModel/IamportPaymentViewModel.swift` (the purchase).
///
/// Departures: the events and the ad-removal product are written by the operator with plain requests (the app
/// has no screen for them). The app buys the post `663f24788077c5d86ecc7870` of LSLP's database. The twin sends
/// that once as shipped, then uses the operator's product post in its place. The PNG test image stands in for the
/// posters. The join screen picks a random role (`Int.random`); the twin takes the first one.
enum DevCommunityTwin {
    /// `PostsRequestModel.product_id` and `EventPost.requestProductID`'s prefix.
    static let productID = "DevCommunity"
    /// `IamportPaymentViewModel`: the ad-removal product, a post id of LSLP's own database.
    static let shippedAdRemovalPostID = "663f24788077c5d86ecc7870"

    // MARK: Request models (DevCommunity/Model/Encoding/*.swift, Model/Codable/*.swift)

    // Model/Encoding/SignUpRequetModel.swift
    struct SignUpRequetModel: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNum: String
    }

    // Model/Encoding/LoginRequestModel.swift
    struct LoginRequestModel: Encodable, Sendable {
        let email: String
        let password: String
    }

    // Model/Encoding/PostsRequestModel.swift: `limit` is always "1000"; `queryItem` is a [String: String].
    struct PostsRequestModel: Sendable {
        var next: String
        var limit = "1000"
        var product_id = DevCommunityTwin.productID

        var queryItem: [(String, String)] { [("next", next), ("limit", limit), ("product_id", product_id)] }
    }

    // Model/Encoding/LikeRequestModel.swift
    struct LikeRequestModel: Encodable, Sendable { let like_status: Bool }

    // Model/Encoding/WritePostRequestModel.swift (no `files`: a recruiting post has no photo)
    struct WritePostRequestModel: Encodable, Sendable {
        var product_id: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let content4: String
        let content5: String
        let title: String
    }

    // Model/Encoding/JoinRequestModel.swift
    struct JoinRequestModel: Encodable, Sendable { let content: String }

    // Model/Encoding/PayValidationModel.swift
    struct PayValidationModel: Encodable, Sendable {
        let imp_uid: String
        let post_id: String
        let productName: String
        var price: Int = 100
    }

    // Model/Codable/ProfileEditRequestModel.swift (also the type the edit's answer is decoded with)
    struct ProfileEditModel: Codable, Sendable {
        let nickname: String
        let phoneNum: String
    }

    // MARK: Answer models (DevCommunity/Model/Decoding/*.swift)

    // Model/Decoding/LoginResultModel.swift
    struct LoginResultModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // Model/Decoding/SignUpResultModel.swift
    struct SignUpResultModel: Decodable, Sendable {
        let user_id: String
        let nick: String
    }

    // Model/Decoding/AccessTokenRefreshModel.swift
    struct AccessTokenRefreshModel: Decodable, Sendable { let accessToken: String }

    // Model/Decoding/WithDrawResultModel.swift
    struct WithDrawResultModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    // Model/Decoding/ProfileResultModel.swift (`phoneNum` required: every member signs up with one)
    struct ProfileResultModel: Decodable, Sendable {
        let nick: String
        let phoneNum: String
    }

    // Model/Decoding/LikeResultModel.swift
    struct LikeResultModel: Decodable, Sendable { let like_status: Bool }

    // Model/Decoding/Creator.swift
    struct Creator: Decodable, Sendable {
        let userID: String
        let nick: String

        enum CodingKeys: String, CodingKey {
            case userID = "user_id"
            case nick
        }
    }

    // Model/Decoding/WriteJoinResultModel.swift
    struct WriteJoinResultModel: Decodable, Sendable {
        let comment_id: String
        let content: String
        let createdAt: String
        let creator: Creator
    }

    // Model/Decoding/AppliedInfo.swift (a comment; `content` is "nick;introduction;role")
    struct AppliedInfo: Decodable, Sendable {
        let comment_id: String
        let content: String
        let creator: Creator

        private var part: [String] {
            let parts = content.components(separatedBy: ";")
            return parts.count == 3 ? parts : ["", "", ""]
        }
        var joinNickName: String { part[0] }
        var introduce: String { part[1] }
        var job: String { part[2] }
    }

    // Model/Decoding/BoughtResultModel.swift
    struct BoughtResultModel: Decodable, Sendable { let data: [BoughtResult] }
    struct BoughtResult: Decodable, Sendable {
        let paidAt: String
        let post_id: String
    }

    // Model/Decoding/EventPostsResultModel.swift
    struct EventPostsResultModel: Decodable, Sendable {
        var data: [EventPost]
        let nextCursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    /// Model/Decoding/EventPostsResultModel.swift `EventPost`: every key `decodeIfPresent` with a default. The
    /// app keeps `content`, `content1`, `url`, `recruitProductId`, `likes`, `likes2` and `hashTag` private; the
    /// twin reads them in its assertions.
    struct EventPost: Decodable, Sendable {
        let postID: String
        let productID: String
        let content: String
        let content1: String
        let time: String
        let organizer: String
        let url: String
        let recruitProductId: String
        let createdAt: String
        let creator: Creator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTag: [String]
        let title: String

        enum CodingKeys: String, CodingKey {
            case postID = "post_id"
            case productID = "product_id"
            case content, content1
            case time = "content2"
            case organizer = "content3"
            case url = "content4"
            case recruitProductId = "content5"
            case createdAt, creator, files, likes, likes2
            case hashTag = "hashTags"
            case title
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            postID = try c.decodeIfPresent(String.self, forKey: .postID) ?? ""
            productID = try c.decodeIfPresent(String.self, forKey: .productID) ?? ""
            content = try c.decodeIfPresent(String.self, forKey: .content) ?? ""
            content1 = try c.decodeIfPresent(String.self, forKey: .content1) ?? ""
            time = try c.decodeIfPresent(String.self, forKey: .time) ?? ""
            organizer = try c.decodeIfPresent(String.self, forKey: .organizer) ?? ""
            url = try c.decodeIfPresent(String.self, forKey: .url) ?? ""
            recruitProductId = try c.decodeIfPresent(String.self, forKey: .recruitProductId) ?? ""
            createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt) ?? ""
            creator = try c.decodeIfPresent(Creator.self, forKey: .creator) ?? Creator(userID: "", nick: "")
            files = try c.decodeIfPresent([String].self, forKey: .files) ?? []
            likes = try c.decodeIfPresent([String].self, forKey: .likes) ?? []
            likes2 = try c.decodeIfPresent([String].self, forKey: .likes2) ?? []
            hashTag = try c.decodeIfPresent([String].self, forKey: .hashTag) ?? []
            title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
        }

        /// `dateStart`: `content1` read with `DateFormatter.formatter` ("yyyy-MM-dd").
        var dateStart: Date? { DevCommunityTwin.dayFormatter.date(from: content1) }
        func isLiked(by userId: String) -> Bool { likes.contains(userId) }
        var requestProductID: String { "DevCommunity\(postID)" }
        var hashTags: String { hashTag.map { "#\($0)" }.joined(separator: " ") }
    }

    // Model/Decoding/PartyPostsResultModel.swift
    struct PartyPostsResultModel: Decodable, Sendable {
        var data: [PartyPost]
        let nextCursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    /// Model/Decoding/PartyPostsResultModel.swift `PartyPost`: `content4` is the description and `comments` the
    /// applications; every key `decodeIfPresent` with a default.
    struct PartyPost: Decodable, Sendable {
        let postID: String
        let productID: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let discriptionText: String
        let createdAt: String
        let creator: Creator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTags: [String]
        let appliedInfo: [AppliedInfo]
        let title: String

        enum CodingKeys: String, CodingKey {
            case postID = "post_id"
            case productID = "product_id"
            case content, content1, content2, content3
            case mainText = "content4"
            case createdAt, creator, files, likes, likes2, hashTags, title
            case appliedInfo = "comments"
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            postID = try c.decodeIfPresent(String.self, forKey: .postID) ?? ""
            productID = try c.decodeIfPresent(String.self, forKey: .productID) ?? ""
            content = try c.decodeIfPresent(String.self, forKey: .content) ?? ""
            content1 = try c.decodeIfPresent(String.self, forKey: .content1) ?? ""
            content2 = try c.decodeIfPresent(String.self, forKey: .content2) ?? ""
            content3 = try c.decodeIfPresent(String.self, forKey: .content3) ?? ""
            discriptionText = try c.decodeIfPresent(String.self, forKey: .mainText) ?? ""
            createdAt = try c.decodeIfPresent(String.self, forKey: .createdAt) ?? ""
            creator = try c.decodeIfPresent(Creator.self, forKey: .creator) ?? Creator(userID: "", nick: "")
            files = try c.decodeIfPresent([String].self, forKey: .files) ?? []
            likes = try c.decodeIfPresent([String].self, forKey: .likes) ?? []
            likes2 = try c.decodeIfPresent([String].self, forKey: .likes2) ?? []
            hashTags = try c.decodeIfPresent([String].self, forKey: .hashTags) ?? []
            title = try c.decodeIfPresent(String.self, forKey: .title) ?? ""
            appliedInfo = try c.decodeIfPresent([AppliedInfo].self, forKey: .appliedInfo) ?? []
        }

        var dateEnd: Date? { DevCommunityTwin.dayFormatter.date(from: content2) }
        var partyMax: String { "\(Int(content3) ?? 0)명 모집" }
        var recruitmentString: [String] { hashTags.map { $0.split(separator: ";").joined(separator: " ") + "명" } }
        /// `recruitmentTuple` reads `$0[1]` of every tag split at `;`: a tag without `;` is an index out of range,
        /// a crash in `PartyDetailHeaderView` and `PartyJoinView`. The twin answers `nil` where the app would crash.
        var recruitmentTuple: [(job: String, maxParty: String)]? {
            let parts = hashTags.map { $0.split(separator: ";") }
            guard parts.allSatisfy({ $0.count >= 2 }) else { return nil }
            return parts.map { (job: "\($0[0])", maxParty: "\($0[1])") }
        }
        func isCreator(_ userId: String) -> Bool { creator.userID == userId }
        func isBookmarked(by userId: String) -> Bool { likes.contains(userId) }
        func isJoined(by userId: String) -> Bool { appliedInfo.contains { $0.creator.userID == userId } }
    }

    /// `Extension/DateFormatter+Extension.swift`: `DateFormatter.formatter`, "yyyy-MM-dd", device time zone.
    static var dayFormatter: DateFormatter {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter
    }

    // MARK: Routers (DevCommunity/Service/Network/*/…Router.swift)

    enum Router {
        static let sesacKey = "SesacKey"

        // Auth/AuthRouter.swift `.access`: the header dictionary, also as the query (URLEncoding.default, sorted).
        static func access(access: String, refresh: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/auth/refresh",
                query: TwinQuery.alamofire([("Refresh", refresh), (sesacKey, key), ("Authorization", access)]),
                headers: [("Refresh", refresh), (sesacKey, key), ("Authorization", access)])
        }

        // Auth/AuthRouter.swift `.login`
        static func login(_ query: LoginRequestModel, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/login", query, headers: [(sesacKey, key)])
        }

        // Auth/AuthRouter.swift `.signUp`
        static func signUp(_ data: SignUpRequetModel, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/join", data, headers: [(sesacKey, key)])
        }

        // Auth/AuthRouter.swift `.withDraw`: a GET, headers also as the query.
        static func withDraw(token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/users/withdraw", query: TwinQuery.alamofire([(sesacKey, key), ("Authorization", token)]),
                headers: [(sesacKey, key), ("Authorization", token)])
        }

        // Post/PostRouter.swift `.getPost` / `.getPartyPost`: `?limit=1000&next=&product_id=…`, no Content-Type.
        static func getPost(_ query: PostsRequestModel, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts", query: TwinQuery.alamofire(query.queryItem),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // Post/PostRouter.swift `.getOnePartyPost` (also the event's detail, decoded as `EventPost`)
        static func getOnePartyPost(postID: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/posts/\(postID)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // Post/PostRouter.swift `.like` (hearts on events, bookmarks on recruiting posts)
        static func like(postID: String, _ query: LikeRequestModel, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts/\(postID)/like", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // Post/PostRouter.swift `.writePost`
        static func writePost(_ data: WritePostRequestModel, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts", data, headers: [("Authorization", token), (sesacKey, key)])
        }

        // Post/PostRouter.swift `.writeJoin`
        static func writeJoin(postID: String, _ data: JoinRequestModel, token: String, key: String) throws
            -> TwinRequest
        {
            try .json(
                "POST", "/v1/posts/\(postID)/comments", data, headers: [("Authorization", token), (sesacKey, key)])
        }

        // Profile/ProfileRouter.swift `.getMyProfile`: headers also as the query.
        static func getMyProfile(token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/users/me/profile",
                query: TwinQuery.alamofire([("Authorization", token), (sesacKey, key)]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // Profile/ProfileRouter.swift `.profileEdit`: `.requestJSONEncodable` keeps the router's
        // `Content-Type: multipart/form-data` (Moya sets application/json only when none is set).
        static func profileEdit(_ query: ProfileEditModel, token: String, key: String) throws -> TwinRequest {
            TwinRequest(
                "PUT", "/v1/users/me/profile",
                headers: [("Authorization", token), (sesacKey, key), ("Content-Type", "multipart/form-data")],
                body: try JSONEncoder().encode(query))
        }

        // Pay/PayRouter.swift `.payValidation`
        static func payValidation(_ query: PayValidationModel, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/payments/validation", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // Pay/PayRouter.swift `.isUserBought` (`.requestPlain`)
        static func isUserBought(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/payments/me", headers: [("Authorization", token), (sesacKey, key)])
        }

        // Extension/KingFisher+Extension.swift + `EventPost.imageURL`: `{base}/v1/{file}`.
        static func image(_ file: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/\(file)",
                headers: [("Authorization", token), (sesacKey, key), ("Content-Type", "application/json")])
        }
    }

    // MARK: The app's state (Extension/UserDefaults+Extension.swift) and its one-send requests

    actor Session {
        let client: TwinClient
        // UserDefaults.UserDefaultsStringKeys; "" when unset, as the subscript answers.
        private(set) var emailId = ""
        private(set) var password = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var userId = ""
        private(set) var userNickname = ""
        private(set) var phoneNum = ""

        init(client: TwinClient) { self.client = client }

        /// SignUpViewController (phone 11 digits, nick ≥ 2, password ≥ 8, email with "@"; no email check) →
        /// SignUpViewCompleteViewModel: `saveSignUpRequest`, join, then login with the stored email/password.
        static func signUp(_ client: TwinClient, nick: String = TestEnvironment.unique("dev")) async throws
            -> Session
        {
            let session = Session(client: client)
            let phone = "01024681357"
            let request = SignUpRequetModel(
                email: "\(nick)@example.com", password: "devcommunity1", nick: nick, phoneNum: phone)
            let joined = try await session.join(request)
            let login = try await session.login(email: request.email, password: request.password)
            #expect(login.status == 200, "\(login.text)")
            let userId = await session.userId
            #expect(joined.user_id == userId && joined.nick == nick)
            return session
        }

        func join(_ request: SignUpRequetModel) async throws -> SignUpResultModel {
            emailId = request.email
            password = request.password
            userNickname = request.nick
            phoneNum = request.phoneNum
            return try await client.call(try Router.signUp(request, key: client.apiKey), as: SignUpResultModel.self)
        }

        /// SignInViewModel: `saveLoginRequest`, login, `saveLoginResult` on success.
        func login(email: String, password: String) async throws -> GatewayClient.Reply {
            emailId = email
            self.password = password
            let reply = try await client.send(
                try Router.login(.init(email: email, password: password), key: client.apiKey))
            if (200..<300).contains(reply.status) {
                let model = try client.decode(LoginResultModel.self, from: reply)
                accessToken = model.accessToken
                refreshToken = model.refreshToken
                emailId = model.email
                userNickname = model.nick
                userId = model.user_id
            }
            return reply
        }

        /// InitialViewModel at every launch: refresh with what UserDefaults holds; a decoded 200 stores the new
        /// access token and opens the tab bar, anything else opens the sign-in screen.
        func launch() async throws -> (reply: GatewayClient.Reply, home: Bool) {
            let reply = try await client.send(
                Router.access(access: accessToken, refresh: refreshToken, key: client.apiKey))
            guard (200..<300).contains(reply.status) else { return (reply, false) }
            accessToken = try client.decode(AccessTokenRefreshModel.self, from: reply).accessToken
            return (reply, true)
        }

        /// AccountSettingView: logout and a successful withdraw both call `deleteAll()`.
        func deleteAll() {
            emailId = ""
            password = ""
            accessToken = ""
            refreshToken = ""
            userId = ""
            userNickname = ""
            phoneNum = ""
        }

        /// A router request with the current access token, sent once (the interceptor never retries).
        func send(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            try await client.send(try build(accessToken))
        }

        /// `BaseRequestManager.requestHandling`: `.successCodes`, then `map(T.self)`.
        func call<Model: Decodable>(
            _ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await send(build)
            #expect((200..<300).contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// The access token expires: a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// EventsViewModel: one `getEventPosts()` (no paging; the app never reads `next_cursor`).
    static func events(_ session: Session, key: String) async throws -> EventPostsResultModel {
        try await session.call(EventPostsResultModel.self) {
            Router.getPost(PostsRequestModel(next: ""), token: $0, key: key)
        }
    }

    /// DetailViewModel: the event's recruiting posts, one request, then `filterPost` (deadline not passed,
    /// earliest deadline first).
    static func parties(of event: EventPost, _ session: Session, key: String) async throws -> PartyPostsResultModel {
        let query = PostsRequestModel(next: "", product_id: event.requestProductID)
        return try await session.call(PartyPostsResultModel.self) { Router.getPost(query, token: $0, key: key) }
    }

    // MARK: Not the app: the operator publishes events and the ad-removal product

    struct OperatorPost: Encodable, Sendable {
        let product_id: String
        let title: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let content4: String
        let files: [String]
    }

    /// The operator's tool (plain LSLP requests): a poster through `POST /v1/posts/files`, then the post.
    static func publish(
        _ post: @Sendable ([String]) -> OperatorPost, poster: Bool, by admin: Session, key: String
    ) async throws -> EventPost {
        var files: [String] = []
        if poster {
            var form = TwinMultipart()
            form.file("files", filename: "poster.png", mimeType: "image/png", bytes: TestImages.png)
            let upload = form
            let uploaded = try await admin.send {
                .multipart("POST", "/v1/posts/files", upload, headers: [("Authorization", $0), (Router.sesacKey, key)])
            }
            #expect(uploaded.status == 200, "\(uploaded.text)")
            files = try #require(try uploaded.json["files"] as? [String])
        }
        let body = post(files)
        return try await admin.call(EventPost.self) {
            try .json("POST", "/v1/posts", body, headers: [("Authorization", $0), (Router.sesacKey, key)])
        }
    }

    /// An event `days` ahead: `content1` start day, `content2` time, `content3` organizer, `content4` link.
    static func publishEvent(_ title: String, daysAhead days: Int, by admin: Session, key: String) async throws
        -> EventPost
    {
        let day = dayFormatter.string(from: Date().addingTimeInterval(Double(days) * 86_400))
        return try await publish(
            { files in
                OperatorPost(
                    product_id: productID, title: title, content: "#해커톤 #개발자행사", content1: day, content2: "10:00",
                    content3: "데브커뮤니티", content4: "https://example.com/\(title)", files: files)
            }, poster: true, by: admin, key: key)
    }
}

@Suite("DevCommunity twin")
struct DevCommunityTwinTests {
    typealias App = DevCommunityTwin

    /// First launch (refresh with empty UserDefaults → sign-in), sign-up without an email check, the Events tab
    /// (one `limit=1000` request) and a poster, an event's page with its (empty) recruiting list, hearts,
    /// 프로필 관리 (read and save), and a relaunch while the access token is still valid.
    @Test func launchSignUpEventsAndProfile() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let admin = try await App.Session.signUp(client)
        let older = try await App.publishEvent(TestEnvironment.unique("해커톤"), daysAhead: 30, by: admin, key: key)
        let newer = try await App.publishEvent(TestEnvironment.unique("컨퍼런스"), daysAhead: 45, by: admin, key: key)

        // Fresh install: InitialViewController refreshes with "" tokens; it fails, so the sign-in screen opens.
        let member = App.Session(client: client)
        let firstLaunch = try await member.launch()
        #expect(firstLaunch.reply.status == 401, "\(firstLaunch.reply.text)")
        #expect(!firstLaunch.home)

        // Sign-up (SignUpViewCompleteViewModel: join, then login).
        let nick = TestEnvironment.unique("dev")
        let phone = "01012345678"
        let joined = try await member.join(
            .init(email: "\(nick)@example.com", password: "devcommunity1", nick: nick, phoneNum: phone))
        #expect(joined.nick == nick)
        let login = try await member.login(email: "\(nick)@example.com", password: "devcommunity1")
        #expect(login.status == 200, "\(login.text)")
        let memberId = await member.userId
        #expect(memberId == joined.user_id)

        // The Events tab: everything in one page, nothing twice, newest first, next_cursor "0".
        let events = try await App.events(member, key: key)
        let ids = events.data.map(\.postID)
        #expect(Set(ids).count == ids.count, "an event is listed twice")
        #expect(events.nextCursor == "0")
        // Newest first, checked on this journey's own events: another journey publishes events into the same
        // product at the same time, and posts written within the same milliseconds may list against their
        // `createdAt` (docs/client-twins.md, known gaps).
        let newerIndex = try #require(ids.firstIndex(of: newer.postID), "the new event is not listed")
        let olderIndex = try #require(ids.firstIndex(of: older.postID), "the older event is not listed")
        #expect(newerIndex < olderIndex)
        let shown = events.data[olderIndex]
        #expect(shown.productID == App.productID && shown.title == older.title)
        #expect(shown.organizer == "데브커뮤니티" && shown.time == "10:00" && shown.url == older.url)
        #expect(shown.dateStart.map { $0 > Date() } == true, "the event would be hidden as past")
        #expect(shown.hashTags == "#해커톤 #개발자행사")
        #expect(shown.recruitProductId == "" && shown.creator.userID == older.creator.userID)

        // The poster through Kingfisher's modifier.
        let posterFile = try #require(shown.files.first)
        let poster = try await member.send { App.Router.image(posterFile, token: $0, key: key) }
        #expect(poster.status == 200, "\(poster.status)")
        #expect(poster.body == TestImages.png)

        // The event's page: its detail (for the heart) and its recruiting posts (none yet).
        let detail = try await member.call(App.EventPost.self) {
            App.Router.getOnePartyPost(postID: shown.postID, token: $0, key: key)
        }
        #expect(detail.postID == shown.postID && !detail.isLiked(by: memberId))
        let parties = try await App.parties(of: shown, member, key: key)
        #expect(parties.data.isEmpty && parties.nextCursor == "0")

        // The heart maps the tap to the list's `eventPost`: `!isLiked` → true.
        let liked = try await member.call(App.LikeResultModel.self) {
            try App.Router.like(
                postID: shown.postID, .init(like_status: !shown.isLiked(by: memberId)), token: $0, key: key)
        }
        #expect(liked.like_status == true)
        // A second tap in the same visit reads the same stale `eventPost`: true again.
        let again = try await member.call(App.LikeResultModel.self) {
            try App.Router.like(
                postID: shown.postID, .init(like_status: !shown.isLiked(by: memberId)), token: $0, key: key)
        }
        withKnownIssue(
            "DevCommunity defect: Scene/DetailScene/ViewController/DetailViewController.swift maps every heart tap to the list's `eventPost`, so the second tap sends like_status true again and the heart cannot be taken back in the same visit"
        ) {
            #expect(again.like_status == false)
        }
        // Back on the list (reloaded on viewDidAppear), into the event again: the heart now unlikes.
        let reloaded = try await App.events(member, key: key)
        let hearted = try #require(reloaded.data.first { $0.postID == shown.postID })
        #expect(hearted.isLiked(by: memberId))
        let unliked = try await member.call(App.LikeResultModel.self) {
            try App.Router.like(
                postID: hearted.postID, .init(like_status: !hearted.isLiked(by: memberId)), token: $0, key: key)
        }
        #expect(unliked.like_status == false)

        // Settings → 프로필 관리: my profile (tokens and key also in the query).
        let profile = try await member.call(App.ProfileResultModel.self) {
            App.Router.getMyProfile(token: $0, key: key)
        }
        #expect(profile.nick == nick && profile.phoneNum == phone)

        // Save (nick ≥ 2, an 11-digit phone): JSON under a multipart Content-Type.
        let newNick = TestEnvironment.unique("dv")
        let edit = try await member.send {
            try App.Router.profileEdit(.init(nickname: newNick, phoneNum: "01087654321"), token: $0, key: key)
        }
        #expect(edit.status == 400, "\(edit.status) \(edit.text)")
        withKnownIssue(
            "DevCommunity defect: Service/Network/Profile/ProfileRouter.swift sends `{nickname, phoneNum}` as JSON under `Content-Type: multipart/form-data` without a boundary, and decodes the answer as that request model, so no profile edit ever succeeds"
        ) {
            #expect(edit.status == 200)
            _ = try client.decode(App.ProfileEditModel.self, from: edit)
        }
        let unchanged = try await member.call(App.ProfileResultModel.self) {
            App.Router.getMyProfile(token: $0, key: key)
        }
        #expect(unchanged.nick == nick && unchanged.phoneNum == phone)

        // The next launch, while the access token is still valid: the refresh answers 409.
        let relaunch = try await member.launch()
        #expect(relaunch.reply.status == 409, "\(relaunch.reply.text)")
        withKnownIssue(
            "DevCommunity defect: Scene/InitialScene/ViewModel/InitialViewModel.swift treats the refresh's 409 (access token still valid) as a failure and opens the sign-in screen"
        ) {
            #expect(relaunch.home)
        }
        // The sign-in screen (password ≥ 8): login, then the Events tab works.
        let again2 = try await member.login(email: "\(nick)@example.com", password: "devcommunity1")
        #expect(again2.status == 200, "\(again2.text)")
        let afterLogin = try await App.events(member, key: key)
        #expect(afterLogin.data.contains { $0.postID == newer.postID })
    }

    /// PartyPostAddView: a recruiting post for an event (roles as `#role;count ` hashtags, no photo); the host's
    /// and an applicant's views of it (DetailViewModel's list, PartyDetailViewModel); the two bookmark buttons;
    /// PartyJoinView's application (a comment `"nick;introduction;role"`) seen by both.
    @Test func recruitTeammatesAndApply() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let admin = try await App.Session.signUp(client)
        let published = try await App.publishEvent(TestEnvironment.unique("해커톤"), daysAhead: 60, by: admin, key: key)
        let host = try await App.Session.signUp(client)
        let hostId = await host.userId, hostNick = await host.userNickname
        let hostEvents = try await App.events(host, key: key)
        let event = try #require(hostEvents.data.first { $0.postID == published.postID })

        // 팀원 모집 게시물 작성: steppers iOS 2, 백엔드 1, PM 0, UI/UX 1; the deadline 20 days ahead.
        var content = ""
        var total = 0
        for (job, count) in zip(["iOS", "백엔드", "PM", "UI/UX"], [2, 1, 0, 1]) {
            if count != 0 { content += "#\(job);\(count) " }
            total += count
        }
        #expect(content == "#iOS;2 #백엔드;1 #UI/UX;1 ")
        let deadline = App.dayFormatter.string(from: Date().addingTimeInterval(20 * 86_400))
        let intro = "SwiftUI로 해커톤 나가실 분 구해요. 디자이너 환영!"
        let write = App.WritePostRequestModel(
            product_id: event.requestProductID, content: content, content1: deadline, content2: deadline,
            content3: "\(total)", content4: intro, content5: "", title: "\(event.title) 같이 나가요")
        let party = try await host.call(App.PartyPost.self) { try App.Router.writePost(write, token: $0, key: key) }
        #expect(party.productID == "DevCommunity\(event.postID)")
        #expect(party.partyMax == "4명 모집" && party.discriptionText == intro && party.title == write.title)
        #expect(party.isCreator(hostId) && party.files.isEmpty && party.appliedInfo.isEmpty)
        // The roles come back whole in `hashTags` (a tag runs to the next whitespace, decision 0041): the app's
        // header and apply screen split them at `;` (a tag cut at `;` or `/` crashed them, found by this twin).
        #expect(party.hashTags == ["iOS;2", "백엔드;1", "UI/UX;1"])
        #expect(party.recruitmentString == ["iOS 2명", "백엔드 1명", "UI/UX 1명"])
        #expect(party.recruitmentTuple?.map(\.job) == ["iOS", "백엔드", "UI/UX"])
        #expect(party.recruitmentTuple?.map(\.maxParty) == ["2", "1", "1"])

        // The event's page for the host: the post is listed (deadline not passed), and its detail says the host
        // cannot apply.
        let hostList = try await App.parties(of: event, host, key: key)
        #expect(hostList.nextCursor == "0")
        #expect(hostList.data.map(\.postID) == [party.postID])
        #expect(hostList.data.allSatisfy { ($0.dateEnd ?? .distantPast) >= Calendar.current.startOfDay(for: Date()) })
        let hostView = try await host.call(App.PartyPost.self) {
            App.Router.getOnePartyPost(postID: party.postID, token: $0, key: key)
        }
        #expect(hostView.isCreator(hostId) && !hostView.isJoined(by: hostId))

        // An applicant opens the event and taps the recruiting post.
        let applicant = try await App.Session.signUp(client)
        let applicantId = await applicant.userId, applicantNick = await applicant.userNickname
        let applicantList = try await App.parties(of: event, applicant, key: key)
        let item = try #require(applicantList.data.first)
        #expect(item.postID == party.postID && item.creator.nick == hostNick)
        let opened = try await applicant.call(App.PartyPost.self) {
            App.Router.getOnePartyPost(postID: item.postID, token: $0, key: key)
        }
        #expect(!opened.isBookmarked(by: applicantId) && !opened.isJoined(by: applicantId))

        // The detail's bookmark button sends the list item's current state, not its opposite.
        let detailTap = try await applicant.call(App.LikeResultModel.self) {
            try App.Router.like(
                postID: item.postID, .init(like_status: item.isBookmarked(by: applicantId)), token: $0, key: key)
        }
        withKnownIssue(
            "DevCommunity defect: Scene/PartyDetailScene/ViewModel/PartyDetailViewModel.swift sends like_status = isBookmarked (not its negation), so the detail's bookmark button never changes anything"
        ) {
            #expect(detailTap.like_status == true)
        }
        // Back on the list, the cell's bookmark button negates: bookmarked.
        let cellTap = try await applicant.call(App.LikeResultModel.self) {
            try App.Router.like(
                postID: item.postID, .init(like_status: !item.isBookmarked(by: applicantId)), token: $0, key: key)
        }
        #expect(cellTap.like_status == true)
        let bookmarked = try await applicant.call(App.PartyPost.self) {
            App.Router.getOnePartyPost(postID: item.postID, token: $0, key: key)
        }
        #expect(bookmarked.isBookmarked(by: applicantId))

        // 참가신청: the nick field (prefilled from UserDefaults), a ≥ 10-character introduction, a role segment.
        let roles = try #require(opened.recruitmentTuple, "PartyJoinView reads the roles from the tags").map(\.job)
        let introduction = "iOS 2년차이고 해커톤 수상 경험 있습니다"
        let application = "\(applicantNick);\(introduction);\(roles[0])"
        let joined = try await applicant.call(App.WriteJoinResultModel.self) {
            try App.Router.writeJoin(postID: item.postID, .init(content: application), token: $0, key: key)
        }
        #expect(joined.content == application && joined.creator.userID == applicantId)
        #expect(joined.creator.nick == applicantNick)

        // The detail again: "이미 가입되어 있습니다", and the applied list reads the three parts.
        let afterJoin = try await applicant.call(App.PartyPost.self) {
            App.Router.getOnePartyPost(postID: item.postID, token: $0, key: key)
        }
        #expect(afterJoin.isJoined(by: applicantId))
        let applied = try #require(afterJoin.appliedInfo.first)
        #expect(applied.comment_id == joined.comment_id)
        #expect(applied.joinNickName == applicantNick && applied.introduce == introduction && applied.job == "iOS")

        // The host sees the application; the list still shows the post once.
        let hostAgain = try await host.call(App.PartyPost.self) {
            App.Router.getOnePartyPost(postID: party.postID, token: $0, key: key)
        }
        #expect(hostAgain.appliedInfo.map(\.creator.userID) == [applicantId])
        let listAgain = try await App.parties(of: event, host, key: key)
        #expect(listAgain.data.map(\.postID) == [party.postID] && listAgain.nextCursor == "0")
    }

    /// Settings → 광고 제거 구매 (IamportPaymentViewModel): the purchase history first; the app as shipped (LSLP's
    /// post id); then the operator's product: pay 100, validate, the callback twice (409), the history again.
    @Test func adRemovalPurchase() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let admin = try await App.Session.signUp(client)
        let product = try await App.publish(
            { _ in
                App.OperatorPost(
                    product_id: "DevCommunityAdRemoval", title: "DevCommunity 광고제거", content: "광고 제거",
                    content1: "", content2: "", content3: "", content4: "", files: [])
            }, poster: false, by: admin, key: key)
        let member = try await App.Session.signUp(client)
        let memberId = await member.userId

        // The screen appears: nothing bought yet, so the iamport sheet opens.
        let history = try await member.call(App.BoughtResultModel.self) { App.Router.isUserBought(token: $0, key: key) }
        #expect(history.data.isEmpty)

        // The iamport SDK's part: merchant_uid "iOS_test_<UUID>", amount "100".
        func pay() async throws -> String {
            let paid = try await sandbox.send(
                "POST", "/__sandbox/payments",
                json: #"{"merchant_uid":"iOS_test_\#(UUID())","amount":100,"name":"DevCommunity 광고제거"}"#)
            #expect(paid.status == 200, "\(paid.text)")
            return try #require(try paid.json.string("imp_uid"))
        }

        // As shipped: post 663f24788077c5d86ecc7870 is not in our database (410) → "구매를 진행을 실패하였습니다".
        let shipped = App.PayValidationModel(
            imp_uid: try await pay(), post_id: App.shippedAdRemovalPostID, productName: "DevCommunity 광고제거")
        let failed = try await member.send { try App.Router.payValidation(shipped, token: $0, key: key) }
        #expect(failed.status == 410, "\(failed.status) \(failed.text)")

        // With the operator's product in its place: 200 → "광고 제거를 구매하셨습니다".
        let query = App.PayValidationModel(
            imp_uid: try await pay(), post_id: product.postID, productName: "DevCommunity 광고제거")
        let validated = try await member.send { try App.Router.payValidation(query, token: $0, key: key) }
        #expect(validated.status == 200, "\(validated.status) \(validated.text)")
        // The result callback again with the same imp_uid: 409 → "이미 구매하셨습니다".
        let twice = try await member.send { try App.Router.payValidation(query, token: $0, key: key) }
        #expect(twice.status == 409, "\(twice.status) \(twice.text)")

        // The screen again: the product is in the history, so the sheet stays closed.
        let after = try await member.call(App.BoughtResultModel.self) { App.Router.isUserBought(token: $0, key: key) }
        #expect(after.data.map(\.post_id) == [product.postID])
        #expect(after.data.allSatisfy { !$0.paidAt.isEmpty })
        let post = try await member.send { App.Router.getOnePartyPost(postID: product.postID, token: $0, key: key) }
        #expect(try post.json["buyers"] as? [String] == [memberId])
    }

    /// Tokens as the app handles them: an expired access token is never refreshed in use (419 on the Events
    /// tab); the next launch refreshes; once the refresh token has expired the launch gets 418 and the sign-in
    /// screen; 계정 관리 → 회원탈퇴 (a GET with the tokens in the query), and the account is gone.
    @Test func expiredTokensRelaunchAndWithdraw() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let member = try await App.Session.signUp(client)
        let email = await member.emailId, nick = await member.userNickname, memberId = await member.userId

        // The access token expires while the app is open: the Events tab's pull-to-refresh gets 419, once.
        try await member.letAccessTokenExpire()
        let expired = try await member.send { App.Router.getPost(.init(next: ""), token: $0, key: key) }
        #expect(expired.status == 419, "\(expired.status) \(expired.text)")
        withKnownIssue(
            "DevCommunity defect: Service/Network/Plugin/Interceptor/Interceptor.swift never refreshes (`statusCode != 401 || statusCode != 418` is always true), so every screen fails until the app is relaunched"
        ) {
            _ = try client.decode(App.EventPostsResultModel.self, from: expired)
        }

        // The next launch: the refresh answers 200 and the tab bar opens with the new access token.
        let relaunch = try await member.launch()
        #expect(relaunch.reply.status == 200, "\(relaunch.reply.text)")
        #expect(relaunch.home)
        let events = try await App.events(member, key: key)
        #expect(events.nextCursor == "0")

        // Both tokens expire: the launch's refresh answers 418 → sign-in → login → the Events tab.
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let stale = try await member.launch()
        #expect(stale.reply.status == 418, "\(stale.reply.text)")
        #expect(!stale.home)
        let login = try await member.login(email: email, password: "devcommunity1")
        #expect(login.status == 200, "\(login.text)")
        _ = try await App.events(member, key: key)

        // 계정 관리 → 회원탈퇴 → 확인: the withdraw answer, then `deleteAll()` and the sign-in screen.
        let withdrawn = try await member.call(App.WithDrawResultModel.self) {
            App.Router.withDraw(token: $0, key: key)
        }
        #expect(withdrawn.user_id == memberId && withdrawn.email == email && withdrawn.nick == nick)
        await member.deleteAll()
        let afterWithdraw = try await member.launch()
        #expect(afterWithdraw.reply.status == 401, "\(afterWithdraw.reply.text)")
        #expect(!afterWithdraw.home)
        let gone = try await member.login(email: email, password: "devcommunity1")
        #expect(gone.status == 401, "\(gone.text)")
    }
}
