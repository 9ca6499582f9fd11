import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// MyUglyPet ("못난이 펫", github.com/Acasiax/MyUglyPet, Aug–Sep 2024, G1): pet owners sign up (e-mail, nick,
/// password), post photos of their pets to a feed (`product_id` "allFeed", with the phone's latitude/longitude in
/// `content3`/`content4` for the map tab), like, comment on and follow each other, register a pet as an "ugly
/// candidate" (`product_id` "못난이후보등록", owner's nick in `content1`), play a tournament over the candidates whose
/// winner is posted again under `product_id` "각유저가고른1등우승자" with the hashtag `#1등이닷` (the dashboard's
/// ranking reads it back through the hashtag route), and donate 10 won through the iamport SDK.
///
/// The app's network layer (MyUglyPet/Lslp/…): the router itself, `Router.swift`, is listed in the repository's
/// `.gitignore` (with `APIKey.swift`) and was never committed, so every path and method below is inferred from the
/// call sites in `Network/NetworkManager/**` and the standard G1 routes; what *is* committed is
/// `Network/TargetType.swift` (`routerbaseURL` + `path`, `allHTTPHeaderFields = header`, `httpBody = body`) and
/// `Network/Header.swift`, which spells the headers `Authorization`, `SesacKey`, `Refresh`, `Content-Type`. The
/// inferences: `Authorization` (the bare token from `UserDefaultsManager.token`) and `SesacKey` on every
/// authenticated call, `Refresh` only on `GET /v1/auth/refresh`, `Content-Type: application/json` only with a JSON
/// body; a `[String: Any]` body (`createPost`, `updatePost`, `editComment`) is written by `JSONSerialization`, an
/// `Encodable` query (`LoginQuery`, `RegistrationResponse`, `CommentQuery`, `LikePostQuery`,
/// `ValidateReceiptQuery`) by `JSONEncoder` (so join's nil `phoneNum`/`birthDay` are left out); list queries
/// (`FetchReadingPostQuery` and friends, whose `next` is always nil) are `URLQueryItem`s in declaration order, so a
/// nil `next` is a bare name: `?next&limit=30&product_id=allFeed`. Uploads go through
/// `AF.upload(multipartFormData:with:)`: one request per photo, part `files`, file name `postImage.jpeg`,
/// `image/jpeg`. Images are loaded by Kingfisher from `APIKey.baseURL + "v1/" + path` with
/// `Router.headersForImageRequest` (taken here as `Authorization` + `SesacKey`).
///
/// Token handling: only `FollowPostNetworkManager` (my profile, another profile, follow, unfollow) looks at 419:
/// it calls `MyLoginNetworkManager.refreshToken` (`GET /v1/auth/refresh`; 418/403/401 → failure; otherwise the new
/// `accessToken` is saved) and calls itself again. Every other call just fails on a 419. There is no launch check,
/// no logout and no withdraw: the app always starts at the login screen.
///
/// Mirrored files: Lslp/Network/TargetType.swift, Header.swift, UserDefaultsManager.swift,
/// Lslp/Network/NetworkManager/PostNetworkManager.swift, NetworkManager/{MyLogin,SignUpPost,FollowPost,Pay,
/// WinnerPost}NetworkManager.swift, Lslp/Model/{CommentDTO,LikePostDTO,LoginDTO,PayDTO,PostDTO,SignupProfileDTO}.swift
/// and the screens that call them (UglyApp/View/…: LoginView, CreatePostView, ReadingPostView, DetailPostView,
/// EditProfileView, UglyCandidateView, HomeView, GameView, DashboardView, PayView).
///
/// Departures: the `SesacKey` value is the test stack's key; photos are the PNG test image declared as JPEG (the
/// app sends `jpegData(compressionQuality: 0.8)`); the iamport web view is replaced by the PortOne test server's
/// sandbox and `merchant_uid` ("ios_<seconds>") gets a unique tail; the app's unbounded "refresh, then call
/// myself again" is bounded at three sends; the donation post (hard-coded `66d17ed51691d4013e5523af`, a post of the
/// server the app was built for) is sent once as shipped, then replaced by a post the operator writes here with
/// `price` 10; where the app stops (the liked-posts tab's second page, the tournament's winner post) the twin
/// says so and reads on with the server's `next_cursor` / posts the winner itself, to check what lies beyond.
///
/// Not exercised: the map tab and the photo album (the same `allFeed` request with limit 30 as the feed), post
/// deletion from the other profile screen (the same `DELETE`). No screen pages: every list is one request with
/// `next` nil.
enum MyUglyPetTwin {
    // MARK: Constants (the screens that build the queries)

    /// CreatePostViewServerLogic.swift, AllPostHomeViewNetwork.swift, DashboardViewController.swift …
    static let feedProductId = "allFeed"
    /// UglyCandidateViewModel.swift, IntroUglyCandidateViewController.swift, GameViewServerLogic.swift.
    static let candidateProductId = "못난이후보등록"
    /// GameViewServerLogic.swift (`uploadWinnerPost`) and DashboardViewController.swift (`fetchHashtagPosts`).
    static let winnerProductId = "각유저가고른1등우승자"
    static let winnerHashTag = "1등이닷"
    /// PaymentViewController.swift: `validateReceipt(imp_uid:post_id: "66d17ed51691d4013e5523af")`, amount "10".
    static let shippedDonationPostId = "66d17ed51691d4013e5523af"
    static let donationAmount = 10
    /// EmailInputViewController.swift: the e-mail is free only when the message is exactly this.
    static let emailFreeMessage = "사용 가능한 이메일입니다."

    // MARK: Models (MyUglyPet/Lslp/Model/…)

    // LoginDTO.swift
    struct LoginQuery: Encodable, Sendable {
        let email: String
        let password: String
    }

    // LoginDTO.swift
    struct RefreshModel: Decodable, Sendable { let accessToken: String }

    // LoginDTO.swift
    struct LoginModel: Decodable, Sendable {
        let id: String
        let email: String
        let nick: String
        let profile: String?
        let access: String
        let refresh: String

        enum CodingKeys: String, CodingKey {
            case id = "user_id"
            case email, nick
            case profile = "profileImage"
            case access = "accessToken"
            case refresh = "refreshToken"
        }
    }

    // SignupProfileDTO.swift (the join body, despite its name)
    struct RegistrationResponse: Encodable, Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
    }

    // SignupProfileDTO.swift (the join answer)
    struct ProfileModel: Decodable, Sendable {
        let id: String
        let email: String
        let nick: String

        enum CodingKeys: String, CodingKey {
            case id = "user_id"
            case email, nick
        }
    }

    // SignupProfileDTO.swift
    struct EmailValidationResponse: Decodable, Sendable { let message: String }

    // SignupProfileDTO.swift (my profile and other profiles alike)
    struct MyProfileResponse: Decodable, Sendable {
        let user_id: String
        let email: String?
        let nick: String
        let phoneNum: String?
        let birthDay: String?
        let profileImage: String?
        let followers: [MyUser]
        let following: [MyUser]
        let posts: [String]
    }

    // SignupProfileDTO.swift
    struct MyUser: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // SignupProfileDTO.swift ("사용안함", yet `followUser` decodes it)
    struct FollowResponse: Decodable, Sendable {
        let nick: String
        let opponent_nick: String
        let following_status: Bool
    }

    // PostDTO.swift
    struct PostImageModel: Decodable, Sendable { let files: [String] }

    // PostDTO.swift
    struct PostsResponse: Decodable, Sendable {
        let data: [PostsModel]
        /// No `CodingKeys`: the server's `next_cursor` never lands here.
        let nextCursor: String?
    }

    // PostDTO.swift
    struct PostsModel: Decodable, Sendable {
        let postId: String
        let productId: String?
        var title: String?
        var content: String?
        var content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let createdAt: String
        let creator: Creator
        let files: [String]?
        let likes: [String]?
        let likes2: [String]?
        let hashTags: [String]?
        var comments: [Comment]

        enum CodingKeys: String, CodingKey {
            case postId = "post_id"
            case productId = "product_id"
            case title, content, content1, content2, content3, content4, content5, createdAt, creator, files, likes
            case likes2, hashTags, comments
        }
    }

    // PostDTO.swift
    struct Creator: Decodable, Sendable {
        let userId: String
        let nick: String
        let profileImage: String?

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nick, profileImage
        }
    }

    // CommentDTO.swift
    struct Comment: Decodable, Sendable {
        let commentId: String
        var content: String
        let createdAt: String
        let creator: Creator

        enum CodingKeys: String, CodingKey {
            case commentId = "comment_id"
            case content, createdAt, creator
        }
    }

    // CommentDTO.swift
    struct CommentQuery: Encodable, Sendable { let content: String }

    // CommentDTO.swift
    struct CommentResponse: Decodable, Sendable {
        let commentId: String
        let content: String
        let createdAt: String
        let creator: CommentCreator

        enum CodingKeys: String, CodingKey {
            case commentId = "comment_id"
            case content, createdAt, creator
        }
    }

    // CommentDTO.swift
    struct CommentCreator: Decodable, Sendable {
        let userId: String
        let nick: String

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nick
        }
    }

    // LikePostDTO.swift (sent, and decoded from the answer)
    struct LikePostQuery: Codable, Sendable { let like_status: Bool }

    // PayDTO.swift
    struct ValidateReceiptQuery: Encodable, Sendable {
        let imp_uid: String
        let post_id: String
    }

    // PayDTO.swift
    struct ReceiptValidationResponse: Decodable, Sendable {
        let buyer_id: String
        let post_id: String
        let merchant_uid: String
        let productName: String
        let price: Int
        let paidAt: String
    }

    // PayDTO.swift
    struct PaymentHistoryListValidationResponse: Decodable, Sendable { let data: [PaymentHistory] }

    // PayDTO.swift
    struct PaymentHistory: Decodable, Sendable {
        let buyerID: String
        let postID: String
        let merchantUID: String
        let productName: String
        let price: Int
        let paidAt: String

        enum CodingKeys: String, CodingKey {
            case buyerID = "buyer_id"
            case postID = "post_id"
            case merchantUID = "merchant_uid"
            case productName, price, paidAt
        }
    }

    /// The text fields of `PostNetworkManager.createPost` (its `[String: Any]` parameters; `files` added there).
    struct NewPost: Sendable {
        var title: String?
        var content: String?
        var content1: String?
        var content3: String?
        var content4: String?
        var productId: String?
    }

    // MARK: Router (git-ignored in the app; inferred, see above)

    enum Router {
        static func auth(_ token: String, _ key: String) -> [(String, String)] {
            [("Authorization", token), ("SesacKey", key)]
        }

        /// A `[String: Any]` body through `JSONSerialization`.
        static func serialized(
            _ method: String, _ path: String, _ parameters: [String: Any], headers: [(String, String)]
        ) throws -> TwinRequest {
            TwinRequest(
                method, path, headers: headers + [("Content-Type", "application/json")],
                body: try JSONSerialization.data(withJSONObject: parameters))
        }

        /// `FetchReadingPostQuery` / `FetchHashtagReadingPostQuery` / `FetchLikedPostsQuery` as query items.
        static func listQuery(next: String?, limit: String, productId: String?, hashTag: String? = nil) -> String {
            var items: [(String, String?)] = [("next", next), ("limit", limit)]
            if let productId { items.append(("product_id", productId)) }
            if let hashTag { items.append(("hashTag", hashTag)) }
            return TwinQuery.urlComponents(items)
        }

        static func validateEmail(_ email: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/validation/email", ["email": email], headers: [("SesacKey", key)])
        }

        static func register(_ query: RegistrationResponse, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/join", query, headers: [("SesacKey", key)])
        }

        static func login(_ query: LoginQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/login", query, headers: [("SesacKey", key)])
        }

        static func refresh(token: String, refreshToken: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/auth/refresh", headers: auth(token, key) + [("Refresh", refreshToken)])
        }

        static func fetchMyProfile(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/me/profile", headers: auth(token, key))
        }

        static func fetchUserProfile(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/\(userId)/profile", headers: auth(token, key))
        }

        static func follow(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("POST", "/v1/follow/\(userId)", headers: auth(token, key))
        }

        static func unfollow(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/follow/\(userId)", headers: auth(token, key))
        }

        /// `uploadPostImage`: one photo per request (the screens loop over the photos).
        static func uploadPostImage(_ photo: [UInt8], token: String, key: String) -> TwinRequest {
            var form = TwinMultipart()
            form.file("files", filename: "postImage.jpeg", mimeType: "image/jpeg", bytes: photo)
            return .multipart("POST", "/v1/posts/files", form, headers: auth(token, key))
        }

        /// `createPost`: every text field `?? ""`, except the coordinates' Korean placeholders.
        static func createPost(_ post: NewPost, files: [String], token: String, key: String) throws -> TwinRequest {
            try serialized(
                "POST", "/v1/posts",
                [
                    "title": post.title ?? "", "content": post.content ?? "", "content1": post.content1 ?? "",
                    "content3": post.content3 ?? "위도값없음", "content4": post.content4 ?? "경도값없음",
                    "product_id": post.productId ?? "", "files": files,
                ], headers: auth(token, key))
        }

        static func fetchPosts(productId: String, limit: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts", query: listQuery(next: nil, limit: limit, productId: productId),
                headers: auth(token, key))
        }

        static func fetchUserPosts(_ userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/users/\(userId)", query: listQuery(next: nil, limit: "30", productId: feedProductId),
                headers: auth(token, key))
        }

        static func fetchHashtagPosts(_ hashTag: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/hashtags",
                query: listQuery(next: nil, limit: "30", productId: winnerProductId, hashTag: hashTag),
                headers: auth(token, key))
        }

        static func fetchLikedPosts(next: String?, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts/likes/me", query: listQuery(next: next, limit: "10", productId: nil),
                headers: auth(token, key))
        }

        static func likePost(_ postId: String, _ status: Bool, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts/\(postId)/like", LikePostQuery(like_status: status), headers: auth(token, key))
        }

        static func postComment(_ postId: String, _ content: String, token: String, key: String) throws
            -> TwinRequest
        {
            try .json("POST", "/v1/posts/\(postId)/comments", CommentQuery(content: content), headers: auth(token, key))
        }

        static func editComment(_ postId: String, _ commentId: String, _ content: String, token: String, key: String)
            throws -> TwinRequest
        {
            try serialized(
                "PUT", "/v1/posts/\(postId)/comments/\(commentId)", ["content": content], headers: auth(token, key))
        }

        static func deleteComment(_ postId: String, _ commentId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/posts/\(postId)/comments/\(commentId)", headers: auth(token, key))
        }

        /// DetailViewNetwork.swift `updatePost`: only `title` and `content`.
        static func updatePost(_ postId: String, title: String, content: String, token: String, key: String) throws
            -> TwinRequest
        {
            try serialized(
                "PUT", "/v1/posts/\(postId)", ["title": title, "content": content], headers: auth(token, key))
        }

        static func deletePost(_ postId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/posts/\(postId)", headers: auth(token, key))
        }

        static func validateReceipt(_ query: ValidateReceiptQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/payments/validation", query, headers: auth(token, key))
        }

        static func fetchPaymentHistory(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/payments/me", headers: auth(token, key))
        }

        /// Kingfisher with `headersForImageRequest`: `APIKey.baseURL + "v1/" + path`.
        static func image(_ path: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/\(path)", headers: auth(token, key))
        }
    }

    // MARK: One installed app (UserDefaultsManager + the network managers)

    actor Device {
        let client: TwinClient
        let key: String
        /// UserDefaultsManager: `access`, `refresh`, `id` (`""` until the first login).
        private(set) var token = ""
        private(set) var refreshToken = ""
        private(set) var id = ""
        /// The status of every `GET /v1/auth/refresh` this device sent.
        private(set) var refreshStatuses: [Int] = []

        init(_ client: TwinClient) {
            self.client = client
            self.key = client.apiKey
        }

        /// MyLoginNetworkManager.createLogin: `LoginModel` decoded → the three values saved.
        func login(email: String, password: String) async throws -> LoginModel {
            let model = try await client.call(
                try Router.login(LoginQuery(email: email, password: password), key: key), as: LoginModel.self)
            token = model.access
            refreshToken = model.refresh
            id = model.id
            return model
        }

        /// A call with the saved token, no 419 handling (every manager except FollowPostNetworkManager).
        func send(_ build: @Sendable (String, String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            try await client.send(try build(token, key))
        }

        /// `send`, a 2xx expected, then the app's model.
        func call<Model: Decodable>(
            _ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String, String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await send(build)
            #expect(
                (200..<300).contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// MyLoginNetworkManager.refreshToken: 418/403/401 → false; anything else must decode as `RefreshModel`.
        func refresh() async throws -> Bool {
            let reply = try await client.send(Router.refresh(token: token, refreshToken: refreshToken, key: key))
            refreshStatuses.append(reply.status)
            if [418, 403, 401].contains(reply.status) { return false }
            guard let model = try? client.decode(RefreshModel.self, from: reply) else { return false }
            token = model.accessToken
            return true
        }

        /// FollowPostNetworkManager: on 419, refresh; on success call again (the app recurses without bound; at
        /// most three sends here). A failed refresh ends with the 419 ("토큰 갱신 실패").
        func withRefresh(_ build: @Sendable (String, String) throws -> TwinRequest) async throws
            -> GatewayClient.Reply
        {
            var reply = try await send(build)
            var sends = 1
            while reply.status == 419, sends < 3 {
                guard try await refresh() else { return reply }
                reply = try await send(build)
                sends += 1
            }
            return reply
        }

        /// CreatePostViewServerLogic / UglyCandidateViewModel: every photo uploaded on its own, then the post;
        /// `createPost` only checks for status 200 (its answer is read here with `PostsModel`).
        func createPost(_ post: NewPost, photos: Int) async throws -> PostsModel {
            var files: [String] = []
            for _ in 0..<photos {
                let uploaded = try await call(PostImageModel.self) {
                    Router.uploadPostImage(TestImages.png, token: $0, key: $1)
                }
                files += uploaded.files
            }
            let paths = files
            let reply = try await send { try Router.createPost(post, files: paths, token: $0, key: $1) }
            #expect(reply.status == 200, "\(reply.status) \(reply.text)")
            let created = try client.decode(PostsModel.self, from: reply)
            #expect(created.files == paths)
            return created
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            token = try await TwinTokens.expired(sameSessionAs: token, userId: id)
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: token)
        }
    }

    /// NameInputViewController → EmailInputViewController (중복검사) → PasswordInputViewController (join, with
    /// `phoneNum`/`birthDay` dropped by `SignUpPostNetworkManager.registerUser`) → LoginViewController.
    static func signUpAndLogIn(_ client: TwinClient, nick: String = TestEnvironment.unique("ugly")) async throws
        -> (device: Device, email: String, password: String)
    {
        let key = client.apiKey
        let email = "\(nick)@gmail.com", password = "ugly1234"
        let free = try await client.call(try Router.validateEmail(email, key: key), as: EmailValidationResponse.self)
        #expect(free.message == emailFreeMessage, "the next button stays disabled")
        let joined = try await client.call(
            try Router.register(
                RegistrationResponse(email: email, password: password, nick: nick, phoneNum: nil, birthDay: nil),
                key: key),
            as: ProfileModel.self)
        #expect(joined.email == email && joined.nick == nick)
        let device = Device(client)
        let login = try await device.login(email: email, password: password)
        #expect(login.id == joined.id && login.nick == nick && login.profile == nil)
        return (device, email, password)
    }
}

@Suite("MyUglyPet twin", .serialized)
struct MyUglyPetTwinTests {
    typealias App = MyUglyPetTwin

    /// Sign-up (e-mail check free, then taken), login, the first screens (my profile + the feed), two feed posts
    /// (with and without a location; every photo its own upload), the feed and a photo, the writer's posts; the
    /// liked-posts tab, which shows one page of 10 and never reads the cursor.
    @Test func signUpPostAndReadTheFeed() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let (writer, email, _) = try await App.signUpAndLogIn(client)
        let writerId = await writer.id

        // 중복검사 again with the same address: 409 → `.validate` fails → "이미 사용 중".
        let taken = try await client.send(try App.Router.validateEmail(email, key: key))
        #expect(taken.status == 409, "\(taken.status) \(taken.text)")

        // AllPostHomeViewNetwork: my profile (following list for the follow buttons), then the feed.
        let myProfile = try await writer.withRefresh { App.Router.fetchMyProfile(token: $0, key: $1) }
        let me = try client.decode(App.MyProfileResponse.self, from: myProfile)
        #expect(me.user_id == writerId && me.email == email && me.posts.isEmpty && me.following.isEmpty)
        _ = try await writer.call(App.PostsResponse.self) {
            App.Router.fetchPosts(productId: App.feedProductId, limit: "30", token: $0, key: $1)
        }

        // CreatePostViewController with a location: "%.6f" coordinates in content3/content4, content1 "".
        let located = try await writer.createPost(
            App.NewPost(
                title: "우리 감자", content: "못생겨도 귀여워 #못난이", content1: "", content3: "37.517600",
                content4: "126.886400", productId: App.feedProductId), photos: 2)
        #expect(located.content3 == "37.517600" && located.content4 == "126.886400" && located.content1 == "")
        #expect(located.hashTags == ["못난이"] && located.files?.count == 2)
        // Location permission denied: latitude/longitude nil → the Korean placeholders.
        let unlocated = try await writer.createPost(
            App.NewPost(
                title: "산책 중", content: "비 맞은 강아지", content1: "", content3: nil, content4: nil,
                productId: App.feedProductId), photos: 1)
        #expect(unlocated.content3 == "위도값없음" && unlocated.content4 == "경도값없음")

        // The feed (limit 30, no cursor): both posts, newest first; the cell's photo via Kingfisher.
        let feed = try await writer.call(App.PostsResponse.self) {
            App.Router.fetchPosts(productId: App.feedProductId, limit: "30", token: $0, key: $1)
        }
        let ids = feed.data.map(\.postId)
        #expect(Set(ids).count == ids.count)
        let positions = [unlocated.postId, located.postId].compactMap { ids.firstIndex(of: $0) }
        #expect(positions.count == 2 && positions == positions.sorted(), "newest first")
        let shown = try #require(feed.data.first { $0.postId == located.postId })
        #expect(shown.creator.userId == writerId && shown.comments.isEmpty && shown.likes == [])
        let path = try #require(shown.files?.first)
        let photo = try await writer.send { App.Router.image(path, token: $0, key: $1) }
        #expect(photo.status == 200 && photo.body == TestImages.png, "\(photo.status)")

        // MyPostersViewController: my posts through `posts/users/{id}` (allFeed, limit 30).
        let mine = try await writer.call(App.PostsResponse.self) {
            App.Router.fetchUserPosts(writerId, token: $0, key: $1)
        }
        #expect(mine.data.map(\.postId) == [unlocated.postId, located.postId])

        // A reader likes eleven posts (AllPostTableViewCell's heart: `!isLiked`, the answer becomes the state).
        let reader = try await App.signUpAndLogIn(client).device
        var liked: [String] = [located.postId, unlocated.postId]
        for index in 1...9 {
            let post = try await writer.createPost(
                App.NewPost(title: "못난이 \(index)호", content: "\(index)번째 사진", productId: App.feedProductId), photos: 1)
            liked.append(post.postId)
        }
        for postId in liked {
            let answer = try await reader.call(App.LikePostQuery.self) {
                try App.Router.likePost(postId, true, token: $0, key: $1)
            }
            #expect(answer.like_status)
        }

        // MyLikedPostsViewController: one request, `next` nil and limit 10.
        let firstPage = try await reader.send { App.Router.fetchLikedPosts(next: nil, token: $0, key: $1) }
        #expect(firstPage.status == 200, "\(firstPage.text)")
        let tab = try client.decode(App.PostsResponse.self, from: firstPage)
        #expect(tab.data.count == 10)
        let serverCursor = try #require(try firstPage.json.string("next_cursor"))
        #expect(serverCursor != "0", "an eleventh liked post exists")
        withKnownIssue(
            "MyUglyPet defect: MyLikedPostsViewController.swift asks for one page of 10 and Lslp/Model/PostDTO.swift's PostsResponse reads `nextCursor` instead of `next_cursor`, so liked posts beyond the tenth are never shown"
        ) {
            #expect(tab.nextCursor != nil)
        }

        // Departure: the twin follows the server's cursor to "0" to check the rest (nothing repeated, newest first).
        var all = tab.data.map(\.postId)
        var next = serverCursor
        while next != "0" && all.count < 100 {
            let cursor = next
            let page = try await reader.send { App.Router.fetchLikedPosts(next: cursor, token: $0, key: $1) }
            _ = try client.decode(App.PostsResponse.self, from: page)
            all += try #require(try page.json["data"] as? [[String: Any]]).compactMap { $0["post_id"] as? String }
            next = try #require(try page.json.string("next_cursor"))
        }
        #expect(Set(all).count == all.count, "a liked post was listed twice")
        #expect(Set(all) == Set(liked))
    }

    /// The detail screen: like, comment, edit the comment (the screen then shows the writer's newest post), delete
    /// the comment, unlike; follow from the feed cell, the other profile, unfollow; the writer edits (title and
    /// content only) and deletes a post.
    @Test func detailCommentsFollowAndEdits() async throws {
        let client = try TwinClient()
        let writer = try await App.signUpAndLogIn(client).device
        let writerId = await writer.id
        let reader = try await App.signUpAndLogIn(client).device
        let readerId = await reader.id
        let older = try await writer.createPost(
            App.NewPost(title: "주름이", content: "주름이 매력", productId: App.feedProductId), photos: 1)
        let newer = try await writer.createPost(
            App.NewPost(title: "코찡긋", content: "오늘도 찡긋", productId: App.feedProductId), photos: 1)

        // Heart on the feed cell.
        let like = try await reader.call(App.LikePostQuery.self) {
            try App.Router.likePost(older.postId, true, token: $0, key: $1)
        }
        #expect(like.like_status)

        // DetailViewController: the post comes from the feed; a comment is posted.
        let comment = try await reader.call(App.CommentResponse.self) {
            try App.Router.postComment(older.postId, "너무 귀여워요 🐶", token: $0, key: $1)
        }
        #expect(comment.content == "너무 귀여워요 🐶" && comment.creator.userId == readerId)

        // EditCommentViewController → DetailViewNetwork.editComment, then `fetchLatestPostData(userID: creator)`.
        let edited = try await reader.call(App.CommentResponse.self) {
            try App.Router.editComment(older.postId, comment.commentId, "정말 귀여워요 🐶", token: $0, key: $1)
        }
        #expect(edited.commentId == comment.commentId && edited.content == "정말 귀여워요 🐶")
        let reloaded = try await reader.call(App.PostsResponse.self) {
            App.Router.fetchUserPosts(writerId, token: $0, key: $1)
        }
        #expect(reloaded.data.map(\.postId) == [newer.postId, older.postId])
        withKnownIssue(
            "MyUglyPet defect: UglyApp/View/DetailPostView/View/DetailViewNetwork.swift `fetchLatestPostData` shows `updatedPosts.first`, the writer's newest post, so editing a comment on an older post swaps the detail screen's post"
        ) {
            #expect(reloaded.data.first?.postId == older.postId)
        }
        let olderNow = try #require(reloaded.data.first { $0.postId == older.postId })
        #expect(olderNow.comments.map(\.content) == ["정말 귀여워요 🐶"] && olderNow.likes == [readerId])

        // Swipe to delete the comment: any answer counts as success; then unlike.
        let deleted = try await reader.send {
            App.Router.deleteComment(older.postId, comment.commentId, token: $0, key: $1)
        }
        #expect(deleted.status == 200, "\(deleted.status) \(deleted.text)")
        let unlike = try await reader.call(App.LikePostQuery.self) {
            try App.Router.likePost(older.postId, false, token: $0, key: $1)
        }
        #expect(!unlike.like_status)

        // Follow button on the feed cell (FollowPostNetworkManager, validated, `FollowResponse`).
        let follow = try await reader.withRefresh { App.Router.follow(writerId, token: $0, key: $1) }
        #expect(follow.status == 200, "\(follow.status) \(follow.text)")
        let followed = try client.decode(App.FollowResponse.self, from: follow)
        #expect(followed.following_status)
        let myProfile = try await reader.withRefresh { App.Router.fetchMyProfile(token: $0, key: $1) }
        let mine = try client.decode(App.MyProfileResponse.self, from: myProfile)
        #expect(mine.following.map(\.user_id) == [writerId])
        // EditOtherProfileViewController: the writer's profile (no e-mail there) and posts.
        let otherProfile = try await reader.withRefresh { App.Router.fetchUserProfile(writerId, token: $0, key: $1) }
        let other = try client.decode(App.MyProfileResponse.self, from: otherProfile)
        #expect(other.user_id == writerId && other.email == nil && other.followers.map(\.user_id) == [readerId])
        #expect(Set(other.posts).isSuperset(of: [older.postId, newer.postId]))
        let unfollowed = try await reader.withRefresh { App.Router.unfollow(writerId, token: $0, key: $1) }
        #expect(unfollowed.status == 200, "\(unfollowed.status) \(unfollowed.text)")

        // The writer edits the older post (EditPostViewController: only title and content are sent).
        let update = try await writer.send {
            try App.Router.updatePost(older.postId, title: "주름이 (수정)", content: "주름이 매력 #주름", token: $0, key: $1)
        }
        #expect(update.status == 200, "\(update.status) \(update.text)")
        let afterEdit = try await writer.call(App.PostsResponse.self) {
            App.Router.fetchUserPosts(writerId, token: $0, key: $1)
        }
        let editedPost = try #require(afterEdit.data.first { $0.postId == older.postId })
        #expect(editedPost.title == "주름이 (수정)" && editedPost.content == "주름이 매력 #주름")
        #expect(editedPost.productId == App.feedProductId && editedPost.files == older.files)

        // The writer deletes it from the profile screen (validated 2xx): gone from the feed.
        let removed = try await writer.send { App.Router.deletePost(older.postId, token: $0, key: $1) }
        #expect(removed.status == 200, "\(removed.status) \(removed.text)")
        let feed = try await reader.call(App.PostsResponse.self) {
            App.Router.fetchPosts(productId: App.feedProductId, limit: "30", token: $0, key: $1)
        }
        #expect(!feed.data.contains { $0.postId == older.postId })
        #expect(feed.data.contains { $0.postId == newer.postId })
    }

    /// The ugly-pet contest: two candidates registered, the intro list (60) and the game list (30) with photos,
    /// the winner's photo downloaded without headers, the winner post and the dashboard's hashtag ranking; then the
    /// 10-won donation, as shipped and against a post of this server.
    @Test func uglyContestAndDonation() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let (owner, _, _) = try await App.signUpAndLogIn(client)
        let player = try await App.signUpAndLogIn(client).device

        // UglyCandidateViewController: one photo, the pet's name as title, the owner's name in content1.
        let candidate = try await owner.createPost(
            App.NewPost(
                title: "못난이 뭉치", content: "", content1: "뭉치엄마", content3: "", content4: "",
                productId: App.candidateProductId), photos: 1)
        #expect(candidate.productId == App.candidateProductId && candidate.content1 == "뭉치엄마")
        let rival = try await player.createPost(
            App.NewPost(
                title: "못난이 호박", content: "", content1: "호박아빠", content3: "", content4: "",
                productId: App.candidateProductId), photos: 1)

        // IntroUglyCandidateViewController (limit 60) and GameViewController (limit 30).
        let intro = try await player.call(App.PostsResponse.self) {
            App.Router.fetchPosts(productId: App.candidateProductId, limit: "60", token: $0, key: $1)
        }
        #expect(intro.data.prefix(2).map(\.postId) == [rival.postId, candidate.postId])
        let game = try await player.call(App.PostsResponse.self) {
            App.Router.fetchPosts(productId: App.candidateProductId, limit: "30", token: $0, key: $1)
        }
        let pets = game.data.prefix(2)
        #expect(pets.map(\.content1) == ["호박아빠", "뭉치엄마"])
        let winner = try #require(pets.last)
        let winnerPath = try #require(winner.files?.first)
        let shown = try await player.send { App.Router.image(winnerPath, token: $0, key: $1) }
        #expect(shown.status == 200 && shown.body == TestImages.png)

        // The winner: `AF.request(url)` downloads the photo with no headers at all, then re-uploads those bytes.
        let download = try await client.send(TwinRequest("GET", "/v1/\(winnerPath)"))
        withKnownIssue(
            "MyUglyPet defect: UglyApp/View/GameView/View/GameViewServerLogic.swift downloads the winner's photo with a bare AF.request(url), without SesacKey or Authorization"
        ) {
            #expect(download.status == 200, "\(download.status) \(download.text)")
        }
        let downloaded = download.body
        let reupload = try await player.send { App.Router.uploadPostImage(downloaded, token: $0, key: $1) }
        let reuploaded = try? client.decode(App.PostImageModel.self, from: reupload)
        withKnownIssue(
            "MyUglyPet defect: WinnerPostNetworkManager.swift uploads the error body it downloaded as postImage.jpeg, which is not an image, so the winner is never posted (\"이미지 업로드에 실패했습니다.\")"
        ) {
            #expect(reupload.status == 200 && reuploaded != nil, "\(reupload.status) \(reupload.text)")
        }

        // Departure: the winner post as the app would send it had the upload worked. `WinnerPostNetworkManager`
        // drops the upload's answer and keeps the candidate's original path, here a path another member uploaded.
        let winnerPost = try await player.send {
            try App.Router.createPost(
                App.NewPost(
                    title: winner.title, content: "#\(App.winnerHashTag)", content1: winner.content1, content3: "",
                    content4: "", productId: App.winnerProductId), files: [winnerPath], token: $0, key: $1)
        }
        // Refused by design (decisions 0004 and 0005: a post references only paths our media service issued, and
        // signed, for its author). The app never gets here on this server (the two steps above stop it), so the
        // rule is kept; docs/client-twins.md lists it among the known gaps.
        #expect(winnerPost.status == 400, "\(winnerPost.status) \(winnerPost.text)")
        #expect(winnerPost.text.contains("업로드되지 않은 파일입니다"), "\(winnerPost.text)")

        // Another round won by the player's own pet: its path was uploaded by the player, so the post is accepted.
        let ownWinner = try #require(pets.first)
        #expect(ownWinner.postId == rival.postId)
        let ownPath = try #require(ownWinner.files?.first)
        let ownWinnerPost = try await player.send {
            try App.Router.createPost(
                App.NewPost(
                    title: ownWinner.title, content: "#\(App.winnerHashTag)", content1: ownWinner.content1,
                    content3: "", content4: "", productId: App.winnerProductId), files: [ownPath], token: $0, key: $1)
        }
        #expect(ownWinnerPost.status == 200, "\(ownWinnerPost.status) \(ownWinnerPost.text)")
        let posted = try client.decode(App.PostsModel.self, from: ownWinnerPost)
        #expect(posted.hashTags == [App.winnerHashTag] && posted.files == [ownPath])
        #expect(posted.title == "못난이 호박" && posted.content1 == "호박아빠")

        // DashboardViewController: the ranking through `posts/hashtags` (product 각유저가고른1등우승자, #1등이닷).
        let ranking = try await owner.call(App.PostsResponse.self) {
            App.Router.fetchHashtagPosts(App.winnerHashTag, token: $0, key: $1)
        }
        #expect(ranking.data.first?.postId == posted.postId)
        #expect(ranking.data.allSatisfy { $0.productId == App.winnerProductId })

        // PayViewController → PaymentViewController: 10 won through iamport ("ios_<seconds>").
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        func pay() async throws -> String {
            let merchantUid = "ios_\(Date().timeIntervalSince1970)_\(TestEnvironment.unique("mup"))"
            let paid = try await sandbox.send(
                "POST", "/__sandbox/payments",
                json: #"{"merchant_uid":"\#(merchantUid)","amount":10,"name":"잭님의 사투리 교실","buyer_name":"이윤지"}"#)
            #expect(paid.status == 200, "\(paid.text)")
            return try #require(try paid.json.string("imp_uid"))
        }
        let shippedQuery = App.ValidateReceiptQuery(imp_uid: try await pay(), post_id: App.shippedDonationPostId)
        let shipped = try await player.send { try App.Router.validateReceipt(shippedQuery, token: $0, key: $1) }
        withKnownIssue(
            "MyUglyPet defect: UglyApp/View/PayView/PaymentViewController.swift validates every donation against post 66d17ed51691d4013e5523af, a post of the server the app was built for (410 anywhere else)"
        ) {
            #expect(shipped.status == 200, "\(shipped.status) \(shipped.text)")
        }
        #expect(shipped.status == 410, "\(shipped.status) \(shipped.text)")
        _ = try client.decode(TwinMessage.self, from: shipped)
        // `fetchPaymentHistory` runs right after, whatever the validation said.
        let none = try await player.call(App.PaymentHistoryListValidationResponse.self) {
            App.Router.fetchPaymentHistory(token: $0, key: $1)
        }
        #expect(none.data.isEmpty)

        // Not the app: the operator's donation post (the commented sample in PaymentViewController.swift), price 10.
        let admin = try await App.signUpAndLogIn(client).device
        let donationReply = try await admin.send {
            try .json(
                "POST", "/v1/posts",
                MyUglyPetDonationPost(
                    title: "10원 기부하기", content: "10원 기부할게요", product_id: "개발자돈주기", price: App.donationAmount),
                headers: App.Router.auth($0, $1))
        }
        let donation = try client.decode(App.PostsModel.self, from: donationReply)
        let query = App.ValidateReceiptQuery(imp_uid: try await pay(), post_id: donation.postId)
        let receipt = try await player.call(App.ReceiptValidationResponse.self) {
            try App.Router.validateReceipt(query, token: $0, key: $1)
        }
        #expect(receipt.post_id == donation.postId && receipt.price == App.donationAmount)
        let playerId = await player.id
        #expect(receipt.buyer_id == playerId)
        let history = try await player.call(App.PaymentHistoryListValidationResponse.self) {
            App.Router.fetchPaymentHistory(token: $0, key: $1)
        }
        #expect(history.data.map(\.postID) == [donation.postId])
        #expect(history.data.first?.merchantUID == receipt.merchant_uid && history.data.first?.price == 10)
    }

    /// Tokens: an expired access token breaks the feed (419, no refresh); my profile refreshes and calls again;
    /// after that the feed works; once the refresh token has expired, follow's refresh gets 418 and fails; a
    /// post fails with 419; logging in again brings everything back.
    @Test func expiredTokensAsTheAppHandlesThem() async throws {
        let client = try TwinClient()
        let (device, email, password) = try await App.signUpAndLogIn(client)
        let other = try await App.signUpAndLogIn(client).device
        let otherId = await other.id

        try await device.letAccessTokenExpire()
        // PostNetworkManager.fetchPosts: the 419 body does not decode as `PostsResponse` → the feed stays empty.
        let stale = try await device.send {
            App.Router.fetchPosts(productId: App.feedProductId, limit: "30", token: $0, key: $1)
        }
        #expect(stale.status == 419)
        #expect((try? client.decode(App.PostsResponse.self, from: stale)) == nil)
        _ = try client.decode(TwinMessage.self, from: stale)
        let none = await device.refreshStatuses
        #expect(none.isEmpty, "fetchPosts never refreshes")

        // DashboardViewController → fetchMyProfile: 419 → refresh 200 (token saved) → the same call again.
        let profile = try await device.withRefresh { App.Router.fetchMyProfile(token: $0, key: $1) }
        #expect(profile.status == 200, "\(profile.status) \(profile.text)")
        _ = try client.decode(App.MyProfileResponse.self, from: profile)
        let once = await device.refreshStatuses
        #expect(once == [200])
        let feed = try await device.send {
            App.Router.fetchPosts(productId: App.feedProductId, limit: "30", token: $0, key: $1)
        }
        #expect(feed.status == 200)
        _ = try client.decode(App.PostsResponse.self, from: feed)

        // Both tokens expire: follow → 419 → refresh 418 → "토큰 갱신 실패"; the app stays where it is.
        try await device.letRefreshTokenExpire()
        try await device.letAccessTokenExpire()
        let follow = try await device.withRefresh { App.Router.follow(otherId, token: $0, key: $1) }
        #expect(follow.status == 419)
        let twice = await device.refreshStatuses
        #expect(twice == [200, 418])
        // A new post: the upload is 419 and the composer shows "모든 이미지 업로드에 실패했습니다."
        let upload = try await device.send { App.Router.uploadPostImage(TestImages.png, token: $0, key: $1) }
        #expect(upload.status == 419)
        #expect((try? client.decode(App.PostImageModel.self, from: upload)) == nil)

        // The only way back is the login screen (a fresh start of the app).
        _ = try await device.login(email: email, password: password)
        let followed = try await device.withRefresh { App.Router.follow(otherId, token: $0, key: $1) }
        #expect(followed.status == 200, "\(followed.status) \(followed.text)")
        _ = try client.decode(App.FollowResponse.self, from: followed)
    }
}

/// The operator's donation post (not sent by the app).
private struct MyUglyPetDonationPost: Encodable, Sendable {
    let title: String
    let content: String
    let product_id: String
    let price: Int
}
