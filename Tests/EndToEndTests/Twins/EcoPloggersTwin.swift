import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// EcoPloggers (github.com/isakatty/EcoPloggers, Aug–Oct 2024, G1): plogging meetups. A host posts a meetup
/// (one photo, a title, a description that always ends in `#eco_랜덤`, `price: 1000`, the typed price kept in
/// `content4`) under a Seoul district `product_id` (`eco_111121`, …); members browse by district, see the latest
/// meetups (the `eco_랜덤` hashtag) and their favourites (`likes-2/me`), open a meetup (its host's profile is
/// loaded), follow the host and pay to join through the iamport SDK; the host edits or deletes the meetup; a
/// member withdraws from My Page.
///
/// The app's network layer: Alamofire with its own `TargetType.asURLRequest()` (`URL.append(queryItems:)`, so a
/// `nil` value is the bare name and an empty list still adds `?`), `urlRequest.headers = header`, a plain
/// `JSONEncoder()`/`JSONDecoder()`, and `NetworkInterceptor` on most requests (adapt: current access token;
/// retry: on 419, `GET /v1/auth/refresh` with `Refresh`, store, retry; a failed refresh clears the tokens and shows
/// the login screen). Most calls have no `validate()`: the body is decoded whatever the status, and the status is
/// looked at only when decoding fails.
enum EcoPloggersTwin {
    /// EcoPloggers: Utils/Enum/NetworkKey.swift
    enum NetworkKey {
        static let banner = "ecoPloggers_Banner"
        static let hashtag = "eco_랜덤"
    }

    /// EcoPloggers: Utils/Enum/Region.swift `RegionBorough2` (the districts a meetup can be posted under).
    static let regionBorough2 = [
        "eco_111121", "eco_111261", "eco_111262", "eco_111273", "eco_111231", "eco_111152", "eco_111201",
    ]

    // MARK: Queries (EcoPloggers/Model/Query/…)

    // EcoPloggers: Model/Query/FavoriteQuery.swift
    struct FavoriteQuery: Encodable, Sendable { var next: String?; let limit: String? }
    // EcoPloggers: Model/Query/HashtagsQuery.swift
    struct HashtagsQuery: Encodable, Sendable {
        var next: String?; let limit: String?; let product_id: String?; let hashTag: String
    }
    // EcoPloggers: Model/Query/LikePostQuery.swift (PostRouter.likePost exists — with a broken path — and no screen calls it)
    struct LikePostQuery: Codable, Sendable { let like_status: Bool }
    // EcoPloggers: Model/Query/LogInQuery.swift
    struct LogInQuery: Encodable, Sendable { let email: String; let password: String }
    // EcoPloggers: Model/Query/PaymentQuery.swift (the Aug-2024 body)
    struct PaymentQuery: Encodable, Sendable { let imp_uid: String; let post_id: String }
    // EcoPloggers: Model/Query/SignUpQuery.swift
    struct SignUpQuery: Encodable, Sendable { let email: String; let password: String; let nick: String }
    // EcoPloggers: Model/Query/ValidateEmailQuery.swift
    struct ValidateEmailQuery: Encodable, Sendable { let email: String }
    // EcoPloggers: Model/Query/ViewPostQuery.swift
    struct ViewPostQuery: Encodable, Sendable { let next: String?; let limit: String?; let product_id: String? }

    // EcoPloggers: Model/Query/UploadPostQuery.swift — synthesized `encode(to:)`: `nil` optionals are left out.
    struct UploadPostQuery: Encodable, Sendable {
        let title: String
        let price: Int?
        let content: String
        let required_time: String?
        let path: String?
        let recruits: String?
        let priceString: String?
        let due_date: String?
        let product_id: String
        let files: [String]

        enum CodingKeys: String, CodingKey {
            case title, price, content
            case required_time = "content1"
            case path = "content2"
            case recruits = "content3"
            case priceString = "content4"
            case due_date = "content5"
            case product_id, files
        }
    }

    // MARK: Responses (EcoPloggers/Model/ResponseDTO/…)

    // EcoPloggers: Model/ResponseDTO/FollowResponse.swift
    struct FollowResponse: Decodable, Sendable {
        let nick: String; let opponent_nick: String; let following_status: Bool
    }

    // EcoPloggers: Model/ResponseDTO/LoginResponse.swift (no nick)
    struct LoginResponse: Decodable, Sendable {
        let user_id: String
        let email: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // EcoPloggers: Model/ResponseDTO/PaymentValidationResponse.swift (no payment_id; extra keys are ignored)
    struct PaymentValidationResponse: Decodable, Sendable {
        let buyer_id: String
        let post_id: String
        let merchant_uid: String
        let productName: String
        let price: Int
        let paidAt: String
    }

    // EcoPloggers: Model/ResponseDTO/PaymentListResponse.swift (PaymentRouter.paymentList exists; no screen calls it)
    struct PaymentListResponse: Decodable, Sendable { let data: [PaymentValidationResponse] }

    // EcoPloggers: Model/ResponseDTO/ProfileResponse.swift (my profile: `email` required; `birthday`, not `birthDay`)
    struct ProfileResponse: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let phoneNum: String?
        let birthday: String?
        let profileImage: String?
        let followers: [Creator]
        let following: [Creator]
        let posts: [String]
    }

    // EcoPloggers: Model/ResponseDTO/RefreshResponse.swift
    struct RefreshResponse: Decodable, Sendable { let accessToken: String }

    // EcoPloggers: Model/ResponseDTO/SearchUserResponse.swift — what the meetup screen decodes someone's profile
    // with: `followers`/`following` as `[String]`, while LSLP sends `[{user_id, nick, profileImage}]`.
    struct SearchUserResponse: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
        let followers: [String]
        let following: [String]
        let posts: [String]
    }

    // EcoPloggers: Model/ResponseDTO/SignUpResponse.swift (join and withdraw)
    struct SignUpResponse: Decodable, Sendable { let user_id: String; let email: String; let nick: String }

    // EcoPloggers: Model/ResponseDTO/UploadImageResponse.swift
    struct UploadImageResponse: Decodable, Sendable { let files: [String] }

    // EcoPloggers: Model/ResponseDTO/ValidateEmailResponse.swift
    struct ValidateEmailResponse: Decodable, Sendable { let message: String }

    // EcoPloggers: Model/ResponseDTO/ViewPostResponseDTO.swift
    struct ViewPostResponseDTO: Decodable, Sendable {
        let data: [ViewPostDetailResponseDTO]
        let next_cursor: String
    }

    // EcoPloggers: Model/ResponseDTO/ViewPostResponseDTO.swift (`title` and `buyers` required; the domain
    // mapping keeps `price` as `prices`, the payment amount, and `content4` as the displayed price)
    struct ViewPostDetailResponseDTO: Decodable, Sendable {
        let post_id: String
        let product_id: String?
        let title: String
        let price: Int?
        let content: String
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let createdAt: String
        let creator: Creator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let buyers: [String]
        let hashTags: [String]
        let comments: [Comment]
    }

    struct Creator: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    struct Comment: Decodable, Sendable {
        let comment_id: String
        let content: String
        let createdAt: String
        let creator: Creator
    }

    // MARK: Router (EcoPloggers/Network/*/…Router.swift, Utils/Constant/Constant.swift)

    /// Header names as `Constant.NetworkHeader` spells them: `Authorization`, `SesacKey`, `Refresh`.
    enum Router {
        static let sesacKey = "SesacKey"

        /// `URL.append(queryItems:)`: `URLComponents` rules, `nil` value = bare name.
        static func query(_ items: [(String, String?)]) -> String { TwinQuery.urlComponents(items) }

        // EcoPloggers: Network/User/UserRouter.swift `.validateEmail`
        static func validateEmail(_ query: ValidateEmailQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/validation/email", query, headers: [(sesacKey, key)])
        }

        // EcoPloggers: Network/User/UserRouter.swift `.signup`
        static func signup(_ query: SignUpQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/join", query, headers: [(sesacKey, key)])
        }

        // EcoPloggers: Network/User/UserRouter.swift `.login`
        static func login(_ query: LogInQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/login", query, headers: [(sesacKey, key)])
        }

        // EcoPloggers: Network/User/UserRouter.swift `.refreshToken`
        static func refreshToken(access: String, refresh: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/auth/refresh", headers: [("Authorization", access), (sesacKey, key), ("Refresh", refresh)])
        }

        // EcoPloggers: Network/User/UserRouter.swift `.withdraw`
        static func withdraw(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/withdraw", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.uploadImg` + PostNetworkService.uploadImg: one `files` part
        // `image.png`, `image/png` (the picked UIImage's `pngData()`).
        static func uploadImg(_ png: [UInt8], token: String, key: String) -> TwinRequest {
            var form = TwinMultipart()
            form.file("files", filename: "image.png", mimeType: "image/png", bytes: png)
            return .multipart("POST", "/v1/posts/files", form, headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.uploadPost`
        static func uploadPost(_ query: UploadPostQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.viewPost` (`limit ?? "10"`)
        static func viewPost(_ q: ViewPostQuery, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts",
                query: query([("next", q.next), ("limit", q.limit ?? "10"), ("product_id", q.product_id)]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.editPost`
        static func editPost(postID: String, _ query: UploadPostQuery, token: String, key: String) throws -> TwinRequest
        {
            try .json("PUT", "/v1/posts/\(postID)", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.deletePost`
        static func deletePost(postID: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/posts/\(postID)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.userPost`
        static func userPost(userID: String, _ q: ViewPostQuery, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/users/\(userID)",
                query: query([("next", q.next), ("limit", q.limit ?? "10"), ("product_id", q.product_id)]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.fetchFavoritePost`
        static func fetchFavoritePost(_ q: FavoriteQuery, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/likes-2/me", query: query([("next", q.next), ("limit", q.limit ?? "10")]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.hashtags` (`product_id` nil → the bare name `product_id`)
        static func hashtags(_ q: HashtagsQuery, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/hashtags",
                query: query([
                    ("next", q.next), ("limit", q.limit ?? "10"), ("product_id", q.product_id), ("hashTag", q.hashTag),
                ]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Post/PostRouter.swift `.fetchImage` (PostNetworkService.fetchFiles, for every file
        // of every listed meetup)
        static func fetchImage(_ path: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/\(path)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Profile/ProfileRouter.swift `.myProfile`
        static func myProfile(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/me/profile", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Profile/ProfileRouter.swift `.otherProfile`
        static func otherProfile(otherID: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/\(otherID)/profile", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Follow/FollowRouter.swift `.follow` — `query` is `[]`, so the URL ends in `?`.
        static func follow(userID: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "POST", "/v1/follow/\(userID)", query: "", headers: [("Authorization", token), (sesacKey, key)])
        }

        // EcoPloggers: Network/Payment/PaymentRouter.swift `.payment`
        static func payment(_ query: PaymentQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/payments/validation", query, headers: [("Authorization", token), (sesacKey, key)])
        }
    }

    // MARK: Session (UserDefualts/UserDefaultsManager.swift + Network/NetworkInterceptor.swift)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        /// The nick typed at sign-up (the app keeps none: LoginResponse has no nick).
        let nick: String
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var myUserID = ""
        private(set) var refreshes = 0
        private(set) var lastRefreshStatus: Int?
        /// `NetworkInterceptor.handleLogout()`: tokens cleared, `SceneDelegate.changeToLoginVC()`.
        private(set) var loggedOut = 0

        init(client: TwinClient, email: String, password: String, nick: String) {
            self.client = client
            self.email = email
            self.password = password
            self.nick = nick
        }

        /// SignUpViewModel (email check, join) then LogInViewModel (login, tokens and user id stored).
        static func signUp(
            _ client: TwinClient, nick: String = EcoPloggersTwin.hangulNick(), password: String = "eco1234!"
        ) async throws -> Session {
            let email = "eco\(TestEnvironment.unique(""))@example.com"
            let key = client.apiKey
            let checked = try await client.call(
                try Router.validateEmail(.init(email: email), key: key), as: ValidateEmailResponse.self)
            #expect(checked.message != "사용이 불가한 이메일입니다.")
            let joined = try await client.call(
                try Router.signup(.init(email: email, password: password, nick: nick), key: key),
                as: SignUpResponse.self)
            #expect(joined.email == email && joined.nick == nick)
            let session = Session(client: client, email: email, password: password, nick: nick)
            let login = try await session.logIn()
            #expect(login.user_id == joined.user_id)
            return session
        }

        /// LogInViewModel: `AF.request` without interceptor.
        @discardableResult
        func logIn() async throws -> LoginResponse {
            let login = try await client.call(
                try Router.login(.init(email: email, password: password), key: client.apiKey), as: LoginResponse.self)
            accessToken = login.accessToken
            refreshToken = login.refreshToken
            myUserID = login.user_id
            return login
        }

        /// MyProfileViewModel.deleteUD (after withdrawing).
        func deleteUD() {
            accessToken = ""
            refreshToken = ""
            myUserID = ""
        }

        /// `AF.request(urlRequest, interceptor: NetworkInterceptor())`. Alamofire retries as long as the
        /// interceptor says so (no limit in the app; bounded here so a broken server cannot hang the test).
        func send(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            var reply = try await client.send(try build(accessToken))
            var retries = 0
            while reply.status == 419 {
                guard retries < 5 else {
                    Issue.record("the server kept answering 419 after \(retries) refreshes")
                    return reply
                }
                let renewed = try await client.send(
                    Router.refreshToken(access: accessToken, refresh: refreshToken, key: client.apiKey))
                lastRefreshStatus = renewed.status
                guard (200..<300).contains(renewed.status),
                    let model = try? client.decode(RefreshResponse.self, from: renewed)
                else {
                    accessToken = ""
                    refreshToken = ""
                    loggedOut += 1
                    return reply
                }
                accessToken = model.accessToken
                refreshes += 1
                retries += 1
                reply = try await client.send(try build(accessToken))
            }
            return reply
        }

        /// `AF.request(urlRequest)` / `AF.upload(…, with:)` without interceptor (the photo upload).
        func sendPlain(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            try await client.send(try build(accessToken))
        }

        /// The `…NetworkService` pattern: through the interceptor, the app's type decoded.
        func call<Model: Decodable>(
            _ type: Model.Type, status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await send(build)
            #expect(reply.status == status, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        // MARK: Time passing (test-side only, as in AppSession)

        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: myUserID)
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// A nick the sign-up screen accepts: `^[가-힣]{3,10}$` (Hangul only), here 8 random syllables.
    static func hangulNick(_ count: Int = 8) -> String {
        String(
            String.UnicodeScalarView(
                (0..<count).compactMap { _ in Unicode.Scalar(0xAC00 + UInt32.random(in: 0..<11_172)) }))
    }

    /// PostViewModel: the meetup as the post screen builds it.
    static func meetup(title: String, content: String, typedPrice: String, category: Int, files: [String])
        -> UploadPostQuery
    {
        UploadPostQuery(
            title: title, price: 1000, content: content + "#\(NetworkKey.hashtag)",  // String.addContentHashTag
            required_time: "45분", path: nil, recruits: "상시모집", priceString: typedPrice,
            due_date: ISO8601DateFormatter().string(from: Date()),  // Date().ISO8601Format()
            product_id: regionBorough2[category], files: files)
    }

    /// PloggersViewModel.fetchSections: the main screen's three requests (the region section is local).
    static func mainScreen(_ session: Session, key: String) async throws -> (
        banner: ViewPostResponseDTO, favorites: ViewPostResponseDTO, latest: ViewPostResponseDTO
    ) {
        let banner = try await session.call(ViewPostResponseDTO.self) {
            Router.viewPost(.init(next: nil, limit: "1", product_id: NetworkKey.banner), token: $0, key: key)
        }
        let favorites = try await session.call(ViewPostResponseDTO.self) {
            Router.fetchFavoritePost(.init(next: nil, limit: "10"), token: $0, key: key)
        }
        let latest = try await session.call(ViewPostResponseDTO.self) {
            Router.hashtags(
                .init(next: nil, limit: "10", product_id: nil, hashTag: NetworkKey.hashtag), token: $0, key: key)
        }
        return (banner, favorites, latest)
    }

    /// MeetupViewModel for "최신 모집글" (`.hashtags`, limit 20): `viewWillAppear` loads with `next: ""`; then each
    /// scroll to the end loads `next_cursor` — which starts as `""` (only pagination answers update it), so the
    /// first scroll asks for page 1 again — until it is "0"; new items are appended, known ones dropped.
    /// Returns the list shown and the post ids of the pagination pages in the order received.
    static func latestMeetups(_ session: Session, key: String) async throws -> (
        shown: [ViewPostDetailResponseDTO], paged: [String], cursors: [String]
    ) {
        let opening = HashtagsQuery(next: "", limit: "20", product_id: nil, hashTag: NetworkKey.hashtag)
        var shown = try await session.call(ViewPostResponseDTO.self) { Router.hashtags(opening, token: $0, key: key) }
            .data
        var paged: [String] = []
        var cursors: [String] = []
        var nextCursor = ""
        while nextCursor != "0" && cursors.count < 5_000 {
            let query = HashtagsQuery(next: nextCursor, limit: "20", product_id: nil, hashTag: NetworkKey.hashtag)
            let page = try await session.call(ViewPostResponseDTO.self) { Router.hashtags(query, token: $0, key: key) }
            #expect(page.data.count <= 20)
            nextCursor = page.next_cursor
            cursors.append(page.next_cursor)
            paged += page.data.map(\.post_id)
            shown += page.data.filter { item in !shown.contains { $0.post_id == item.post_id } }
        }
        #expect(nextCursor == "0", "the latest meetups never ended")
        return (shown, paged, cursors)
    }

    /// SpecificRegionViewModel: a district's meetups (`limit 20`, no paging).
    static func region(_ session: Session, _ category: Int, key: String) async throws -> [ViewPostDetailResponseDTO] {
        try await session.call(ViewPostResponseDTO.self) {
            Router.viewPost(.init(next: nil, limit: "20", product_id: regionBorough2[category]), token: $0, key: key)
        }.data
    }
}

@Suite("EcoPloggers twin")
struct EcoPloggersTwinTests {
    typealias App = EcoPloggersTwin

    /// SignUpViewModel: the email check (the app reads the *message* of any answer), a nick with a space (402:
    /// "닉네임엔 빈문자열을 포함할 수 없습니다."), the join, the same email checked again (taken), LogInViewModel,
    /// and the main screen's sections.
    @Test func signUpScreenLoginAndMainScreen() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let email = "eco\(TestEnvironment.unique(""))@example.com"
        let free = try await client.call(
            try App.Router.validateEmail(.init(email: email), key: key), as: App.ValidateEmailResponse.self)
        #expect(free.message != "사용이 불가한 이메일입니다.", "the app would call a free email taken")

        let spaced = try await client.send(
            try App.Router.signup(.init(email: email, password: "eco1234!", nick: "플로 깅해요"), key: key))
        #expect(spaced.status == 402, "\(spaced.status) \(spaced.text)")

        let nick = App.hangulNick()
        let joined = try await client.call(
            try App.Router.signup(.init(email: email, password: "eco1234!", nick: nick), key: key),
            as: App.SignUpResponse.self)
        #expect(joined.email == email && joined.nick == nick)

        // Checked again: no `validate()`, so the 409 body is decoded and its message decides.
        let takenReply = try await client.send(try App.Router.validateEmail(.init(email: email), key: key))
        #expect(takenReply.status == 409)
        let taken = try client.decode(App.ValidateEmailResponse.self, from: takenReply)
        #expect(taken.message == "사용이 불가한 이메일입니다.", "the app would offer a taken email as free")
        let again = try await client.send(
            try App.Router.signup(.init(email: email, password: "eco1234!", nick: App.hangulNick()), key: key))
        #expect(again.status == 409, "\(again.text)")

        let session = App.Session(client: client, email: email, password: "eco1234!", nick: nick)
        let login = try await session.logIn()
        #expect(login.user_id == joined.user_id && login.email == email)

        let main = try await App.mainScreen(session, key: key)
        #expect(main.banner.data.count <= 1)
        #expect(main.favorites.data.isEmpty && main.favorites.next_cursor == "0")
        #expect(main.latest.data.count <= 10)
        #expect(main.latest.data.allSatisfy { $0.hashTags.contains(App.NetworkKey.hashtag) })
    }

    /// The sign-up screen accepts any password holding 5–20 of `[A-Za-z0-9!_@$%^&+=]` ("5자 이상 20자 미만") and the
    /// login button needs 5 characters: a member who picks a 5-character password must be able to join and log in.
    @Test func signUpWithTheShortestPasswordTheAppAccepts() async throws {
        let client = try TwinClient()
        let session = try await App.Session.signUp(client, password: "eco12")
        let userId = await session.myUserID
        #expect(!userId.isEmpty)
    }

    /// A host posts a meetup (photo, then post); a member finds it by district and among the latest meetups
    /// (paged to the end), opens it (the host's profile loads), follows the host (twice: 409), opens it again
    /// (now the host has a follower); the host edits it (its price becomes the typed one); the member pays the new
    /// price through iamport and is among its buyers; the member may not delete it, the host does.
    @Test func meetupFollowEditPayDelete() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let host = try await App.Session.signUp(client)
        let member = try await App.Session.signUp(client)
        let hostId = await host.myUserID, memberId = await member.myUserID
        let category = 2  // 서초구

        // PostMeetupViewController: photo upload (no interceptor), then the post.
        let upload = try await host.sendPlain { App.Router.uploadImg(TestImages.png, token: $0, key: key) }
        #expect(upload.status == 200, "\(upload.text)")
        let files = try client.decode(App.UploadImageResponse.self, from: upload).files
        #expect(files.count == 1)
        let title = "한강 플로깅 \(TestEnvironment.unique(""))"
        let query = App.meetup(
            title: title, content: "반포 한강공원에서 같이 주워요", typedPrice: "5000", category: category, files: files)
        let posted = try await host.call(App.ViewPostDetailResponseDTO.self) {
            try App.Router.uploadPost(query, token: $0, key: key)
        }
        #expect(posted.title == title && posted.price == 1000)
        #expect(posted.product_id == App.regionBorough2[category])
        #expect(posted.content == "반포 한강공원에서 같이 주워요#eco_랜덤")
        #expect(posted.hashTags == [App.NetworkKey.hashtag])
        #expect(
            posted.content1 == "45분" && posted.content2 == nil && posted.content3 == "상시모집" && posted.content4 == "5000"
        )
        #expect(posted.content5 == query.due_date)
        #expect(posted.files == files && posted.buyers.isEmpty)
        #expect(posted.creator.user_id == hostId && posted.creator.nick == host.nick)

        // The member browses: the district, then the latest meetups paged to the end.
        let district = try await App.region(member, category, key: key)
        let listed = try #require(district.first { $0.post_id == posted.post_id }, "the meetup is not in its district")
        #expect(listed.price == 1000 && listed.content4 == "5000")
        let latest = try await App.latestMeetups(member, key: key)
        #expect(latest.shown.contains { $0.post_id == posted.post_id })
        #expect(Set(latest.paged).count == latest.paged.count, "a meetup came twice while paging")
        #expect(latest.cursors.last == "0")
        // `toDomain()` downloads every file of the listed meetups.
        for path in latest.shown.prefix(20).flatMap(\.files) {
            let image = try await member.send { App.Router.fetchImage(path, token: $0, key: key) }
            #expect(image.status == 200, "\(path): \(image.status)")
        }
        let photo = try await member.send { App.Router.fetchImage(files[0], token: $0, key: key) }
        #expect(photo.body == TestImages.png)

        // MeetupDetailViewModel: the host's profile, decoded as SearchUserResponse (nobody follows the host yet).
        let hostProfile = try await member.call(App.SearchUserResponse.self) {
            App.Router.otherProfile(otherID: hostId, token: $0, key: key)
        }
        #expect(hostProfile.user_id == hostId && hostProfile.nick == host.nick)
        #expect(hostProfile.posts.contains(posted.post_id))

        // The follow button; tapped again it is "already followed" (409, the button shows "cancel").
        let followed = try await member.call(App.FollowResponse.self) {
            App.Router.follow(userID: hostId, token: $0, key: key)
        }
        #expect(followed.following_status && followed.nick == member.nick && followed.opponent_nick == host.nick)
        let twice = try await member.send { App.Router.follow(userID: hostId, token: $0, key: key) }
        #expect(twice.status == 409, "\(twice.status) \(twice.text)")

        // The meetup opened again: now the host has a follower, and `[String]` cannot hold one.
        let reopened = try await member.send { App.Router.otherProfile(otherID: hostId, token: $0, key: key) }
        #expect(reopened.status == 200)
        withKnownIssue(
            "EcoPloggers defect: Model/ResponseDTO/SearchUserResponse.swift decodes `followers`/`following` as [String]; LSLP sends user objects, so MeetupDetailViewModel falls back to an empty profile once the host has a follower"
        ) {
            _ = try client.decode(App.SearchUserResponse.self, from: reopened)
        }
        let followers = (try reopened.json["followers"] as? [[String: Any]] ?? []).compactMap {
            $0["user_id"] as? String
        }
        #expect(followers == [memberId])

        // EditViewModel: title, content and the price field (which shows `content4`) as they were; `price` becomes
        // Int("5000"), every content1…5 is sent empty.
        let edit = App.UploadPostQuery(
            title: listed.title, price: Int(listed.content4 ?? "") ?? 1000, content: listed.content,
            required_time: "", path: "", recruits: "", priceString: "", due_date: "",
            product_id: listed.product_id ?? "eco_111262", files: listed.files)
        let edited = try await host.call(App.ViewPostDetailResponseDTO.self) {
            try App.Router.editPost(postID: posted.post_id, edit, token: $0, key: key)
        }
        #expect(edited.price == 5000 && edited.title == title && edited.files == files)

        // The member reopens the district; the join button pays `prices ?? 1000`.
        let relisted = try #require(
            try await App.region(member, category, key: key).first { $0.post_id == posted.post_id })
        #expect(relisted.price == 5000)
        let amount = relisted.price ?? 1000
        let merchantUid = "ios_\(key)_\(Int(Date().timeIntervalSince1970))_\(TestEnvironment.unique("eco"))"
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: """
                {"merchant_uid":"\(merchantUid)","amount":\(amount),"name":"\(relisted.title)"}
                """)
        #expect(paid.status == 200, "\(paid.text)")
        let impUid = try #require(try paid.json.string("imp_uid"))
        let payment = try await member.call(App.PaymentValidationResponse.self) {
            try App.Router.payment(.init(imp_uid: impUid, post_id: posted.post_id), token: $0, key: key)
        }
        #expect(payment.buyer_id == memberId && payment.post_id == posted.post_id)
        #expect(payment.price == 5000 && payment.productName == title && payment.merchant_uid == merchantUid)
        let again = try await member.send {
            try App.Router.payment(.init(imp_uid: impUid, post_id: posted.post_id), token: $0, key: key)
        }
        #expect(again.status == 409, "the same payment again is `alreadyValidated`: \(again.status)")
        let withBuyer = try #require(
            try await App.region(member, category, key: key).first { $0.post_id == posted.post_id })
        #expect(withBuyer.buyers == [memberId])

        // Delete: someone else's meetup is 445 ("본인 글만 삭제할 수 있습니다."), the host's own is 200.
        let notMine = try await member.send { App.Router.deletePost(postID: posted.post_id, token: $0, key: key) }
        #expect(notMine.status == 445, "\(notMine.status) \(notMine.text)")
        let removed = try await host.send { App.Router.deletePost(postID: posted.post_id, token: $0, key: key) }
        #expect((200..<300).contains(removed.status), "\(removed.status) \(removed.text)")
        let afterDelete = try await App.region(member, category, key: key)
        #expect(!afterDelete.contains { $0.post_id == posted.post_id })
    }

    /// MyProfileViewModel: my profile, my meetups (segment 0) and favourites (segment 1), then 탈퇴하기: the
    /// answer, tokens cleared, the old token refused, the meetup gone for others.
    @Test func myPageThenWithdraw() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let host = try await App.Session.signUp(client)
        let other = try await App.Session.signUp(client)
        let hostId = await host.myUserID
        let category = 0  // 중구
        let upload = try await host.sendPlain { App.Router.uploadImg(TestImages.png, token: $0, key: key) }
        #expect(upload.status == 200, "\(upload.text)")
        let files = try client.decode(App.UploadImageResponse.self, from: upload).files
        let query = App.meetup(
            title: "을지로 골목 플로깅", content: "퇴근 후 한 시간", typedPrice: "0", category: category, files: files)
        let posted = try await host.call(App.ViewPostDetailResponseDTO.self) {
            try App.Router.uploadPost(query, token: $0, key: key)
        }
        _ = try await other.call(App.FollowResponse.self) { App.Router.follow(userID: hostId, token: $0, key: key) }

        let profile = try await host.call(App.ProfileResponse.self) { App.Router.myProfile(token: $0, key: key) }
        #expect(profile.user_id == hostId && profile.email == host.email && profile.nick == host.nick)
        #expect(profile.posts.contains(posted.post_id))
        let otherId = await other.myUserID
        #expect(profile.followers.map(\.user_id) == [otherId])

        let mine = try await host.call(App.ViewPostResponseDTO.self) {
            App.Router.userPost(userID: hostId, .init(next: nil, limit: "20", product_id: nil), token: $0, key: key)
        }
        #expect(mine.data.map(\.post_id) == [posted.post_id])
        #expect(mine.next_cursor == "0")
        let favorites = try await host.call(App.ViewPostResponseDTO.self) {
            App.Router.fetchFavoritePost(.init(next: nil, limit: "20"), token: $0, key: key)
        }
        #expect(favorites.data.isEmpty)

        // 탈퇴하기.
        let oldToken = await host.accessToken
        let withdrawn = try await host.call(App.SignUpResponse.self) { App.Router.withdraw(token: $0, key: key) }
        #expect(withdrawn.user_id == hostId && withdrawn.email == host.email && withdrawn.nick == host.nick)
        await host.deleteUD()
        let refused = try await client.send(App.Router.myProfile(token: oldToken, key: key))
        #expect(refused.status == 401, "the withdrawn member's token: \(refused.status) \(refused.text)")
        let district = try await App.region(other, category, key: key)
        #expect(!district.contains { $0.post_id == posted.post_id }, "a withdrawn member's meetup is gone")
    }

    /// NetworkInterceptor: an expired access token is renewed (`Refresh` header) and the request retried; once the
    /// refresh token has expired too, the tokens are cleared and the login screen shown; logging in again works.
    @Test func expiredTokensRefreshThenLogInAgain() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let member = try await App.Session.signUp(client)

        try await member.letAccessTokenExpire()
        let profile = try await member.call(App.ProfileResponse.self) { App.Router.myProfile(token: $0, key: key) }
        #expect(profile.email == member.email)
        let refreshes = await member.refreshes, firstRefresh = await member.lastRefreshStatus
        #expect(refreshes == 1)
        #expect(firstRefresh == 200)

        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let expired = try await member.send { App.Router.myProfile(token: $0, key: key) }
        #expect(expired.status == 419)
        let secondRefresh = await member.lastRefreshStatus, loggedOut = await member.loggedOut,
            cleared = await member.accessToken
        #expect(secondRefresh == 418)
        #expect(loggedOut == 1 && cleared.isEmpty)

        try await member.logIn()
        let main = try await App.mainScreen(member, key: key)
        #expect(main.favorites.next_cursor == "0")
    }
}
