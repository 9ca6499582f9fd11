import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// UriBoard (우리보드, github.com/jaesekim/UriBoard, May 2024, G1): a free board. Members write posts (text, with
/// photos), like and "reboard" (like-2) them, comment, follow each other from a profile, edit their profile and
/// send the board a 100-won donation through the iamport SDK.
///
/// The app's network layer: Alamofire with its own `TargetType.asURLRequest()` (`URLComponents.queryItems`, so
/// a `nil` `next` is the bare name `next`), `urlRequest.allHTTPHeaderFields = header` per router case, and
/// `InterceptorManager` (adapt: current access token in `Authorization`; retry: on 419 only, up to 3 times,
/// `GET /v1/auth/refresh` with a lowercase `refresh` header; a failed refresh surfaces the 419 and the home
/// screen sends the user to sign-in). Responses are decoded with a plain `JSONDecoder()` (dates stay strings).
enum UriBoardTwin {
    // MARK: Models (UriBoard/UriBoard/Model/…)

    // UriBoard: Model/Auth/Query/EmailValidationQuery.swift
    struct EmailValidationQuery: Encodable, Sendable { let email: String }
    // UriBoard: Model/Auth/Query/SignInQuery.swift
    struct SignInQuery: Encodable, Sendable { let email: String; let password: String }
    // UriBoard: Model/Auth/Query/SignUpQuery.swift
    struct SignUpQuery: Encodable, Sendable { let email: String; let password: String; let nick: String }

    // UriBoard: Model/Auth/Model/EmailValidationModel.swift
    struct EmailValidationModel: Decodable, Sendable { let message: String }

    // UriBoard: Model/Auth/Model/SignInModel.swift
    struct SignInModel: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // UriBoard: Model/Auth/Model/SignUpModel.swift (custom init, every key required)
    struct SignUpModel: Decodable, Sendable {
        let id: String
        let email: String
        let nick: String

        enum CodingKeys: String, CodingKey {
            case id = "user_id"
            case email
            case nick
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.id = try container.decode(String.self, forKey: .id)
            self.email = try container.decode(String.self, forKey: .email)
            self.nick = try container.decode(String.self, forKey: .nick)
        }
    }

    // UriBoard: Model/Auth/Model/TokenRefreshModel.swift
    struct TokenRefreshModel: Decodable, Sendable { let accessToken: String }

    // UriBoard: Model/Auth/Model/WithdrawModel.swift (AuthRouter.withdraw exists; no screen calls it)
    struct WithdrawModel: Decodable, Sendable { let user_id: String; let email: String; let nick: String }

    // UriBoard: Model/Comment/Query/CommentQuery.swift
    struct CommentQuery: Encodable, Sendable { let content: String }

    // UriBoard: Model/Comment/Model/CommentModel.swift
    struct CommentModel: Decodable, Sendable {
        let comment_id: String
        let content: String
        let createdAt: String
        let creator: PostCreator
    }

    // UriBoard: Model/Following/FollowModel.swift
    struct FollowModel: Decodable, Sendable {
        let nick: String
        let opponent: String
        let status: Bool

        enum CodingKeys: String, CodingKey {
            case nick
            case opponent = "opponent_nick"
            case status = "following_status"
        }
    }

    // UriBoard: Model/Like/Query/PostLikeQuery.swift
    struct PostLikeQuery: Encodable, Sendable { let like_status: Bool }
    // UriBoard: Model/Like/Model/PostLikeModel.swift
    struct PostLikeModel: Decodable, Sendable { let like_status: Bool }

    // UriBoard: Model/Like/Model/ReadLikeModel.swift (LikeRouter.readLike/readReboard exist; no screen calls them)
    struct ReadLikeModel: Decodable, Sendable {
        let data: [ReadDetailPostModel]
        let cursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case cursor = "next_cursor"
        }
    }

    // UriBoard: Model/Payments/PaymentsValidationQuery.swift (the April-2024 body: productName and price too)
    struct PaymentsValidationQuery: Encodable, Sendable {
        let imp_uid: String
        let post_id: String
        let productName: String
        let price: Int
    }

    // UriBoard: Model/Payments/PaymentsValidationModel.swift — a copy of the query, not of LSLP's answer
    // (`{payment_id, buyer_id, post_id, merchant_uid, productName, price, paidAt}`): `imp_uid` is never there.
    struct PaymentsValidationModel: Decodable, Sendable {
        let imp_uid: String
        let post_id: String
        let productName: String
        let price: Int
    }

    // UriBoard: Model/Payments/PaymentsListModel.swift (PaymentsRouter.list exists; no screen calls it)
    struct PaymentsListModel: Decodable, Sendable { let data: [PaymentsDetailModel] }
    struct PaymentsDetailModel: Decodable, Sendable {
        let payment_id: String
        let buyer_id: String
        let post_id: String
        let merchant_uid: String
        let productName: String
        let price: Int
        let paidAt: String
    }

    // UriBoard: Model/Post/Query/CreatePostQuery.swift (`product_id` is a constant, encoded by the synthesized
    // `encode(to:)`; no title, no price)
    struct CreatePostQuery: Encodable, Sendable {
        let content: String
        let product_id = "uriBoard"
        let files: [String]
    }

    // UriBoard: Model/Post/Query/ReadPostsQueryString.swift (`next` nil on the first page)
    struct ReadPostsQueryString: Sendable {
        let next: String?
        let limit: String
        let product_id = "uriBoard"
    }

    // UriBoard: Model/Post/Model/CreatePostModel.swift (`comments: [String]`: a new post has none, so `[]` decodes)
    struct CreatePostModel: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let createdAt: String
        let content: String
        let creator: PostCreator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTags: [String]
        let comments: [String]
    }

    // UriBoard: Model/Post/Model/CreatePostModel.swift
    struct PostCreator: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // UriBoard: Model/Post/Model/ImageFilesModel.swift
    struct ImageFilesModel: Decodable, Sendable { let files: [String] }

    // UriBoard: Model/Post/Model/ReadDetailPostModel.swift (no title; every array and `product_id` required)
    struct ReadDetailPostModel: Decodable, Sendable {
        let id: String
        let productId: String
        let content: String
        let createdAt: String
        let creator: PostCreator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let hashTags: [String]
        let comments: [CommentModel]

        enum CodingKeys: String, CodingKey {
            case id = "post_id"
            case productId = "product_id"
            case content, createdAt, creator, files, likes, likes2, hashTags, comments
        }
    }

    // UriBoard: Model/Post/Model/ReadPostsModel.swift
    struct ReadPostsModel: Decodable, Sendable {
        let data: [ReadDetailPostModel]
        let cursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case cursor = "next_cursor"
        }
    }

    // UriBoard: Model/Profile/ProfileModel.swift (my profile, someone's profile and the edit's answer)
    struct ProfileModel: Decodable, Sendable {
        let user_id: String
        let email: String?
        let nick: String
        let profileImage: String?
        let followers: [UserInfo]
        let following: [UserInfo]
        let posts: [String]
    }

    struct UserInfo: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // UriBoard: Model/Profile/ProfileQuery.swift
    struct ProfileQuery: Sendable {
        let nick: String
        let profile: [UInt8]
    }

    // MARK: Router (UriBoard/UriBoard/Router/*.swift, Network/HTTPHeader.swift)

    /// Header names as `HTTPHeader` spells them: `SesacKey`, `Authorization`, lowercase `refresh`.
    enum Router {
        static let sesacKey = "SesacKey"

        // UriBoard: Router/AuthRouter.swift — body encoded with `keyEncodingStrategy = .convertToSnakeCase`.
        static var authEncoder: JSONEncoder {
            let encoder = JSONEncoder()
            encoder.keyEncodingStrategy = .convertToSnakeCase
            return encoder
        }

        // UriBoard: Router/AuthRouter.swift `.emailValidation`
        static func emailValidation(_ query: EmailValidationQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/validation/email", query, headers: [(sesacKey, key)], encoder: authEncoder)
        }

        // UriBoard: Router/AuthRouter.swift `.signUp`
        static func signUp(_ query: SignUpQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/join", query, headers: [(sesacKey, key)], encoder: authEncoder)
        }

        // UriBoard: Router/AuthRouter.swift `.signIn`
        static func signIn(_ query: SignInQuery, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/users/login", query, headers: [(sesacKey, key)], encoder: authEncoder)
        }

        // UriBoard: Router/AuthRouter.swift `.tokenRefresh` (sent by InterceptorManager without an interceptor)
        static func tokenRefresh(access: String, refresh: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/auth/refresh", headers: [("Authorization", access), (sesacKey, key), ("refresh", refresh)])
        }

        // UriBoard: Router/PostRouter.swift `.imageUpload` + Network/NetworkManager.swift `uploadFiles`: one `files`
        // part per photo, named `"\(data).jpg"` (Data's description, e.g. `68 bytes.jpg`), declared `image/jpg`.
        static func imageUpload(_ photos: [[UInt8]], token: String, key: String) -> TwinRequest {
            var form = TwinMultipart()
            for photo in photos {
                form.file("files", filename: "\(photo.count) bytes.jpg", mimeType: "image/jpg", bytes: photo)
            }
            return .multipart("POST", "/v1/posts/files", form, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/PostRouter.swift `.createPost` (default key strategy)
        static func createPost(_ query: CreatePostQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/PostRouter.swift `.readPosts`: `?next&limit=10&product_id=uriBoard` on the first page
        static func readPosts(_ query: ReadPostsQueryString, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/posts",
                query: TwinQuery.urlComponents([
                    ("next", query.next), ("limit", query.limit), ("product_id", query.product_id),
                ]),
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/PostRouter.swift `.readDetailPost` (path + "/\(parameters)")
        static func readDetailPost(id: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/posts/\(id)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/PostRouter.swift `.deletePost`
        static func deletePost(id: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/posts/\(id)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Protocol/KingfisherModifier.swift — `{base}/v1/{path}` with a JSON Content-Type on the GET
        static func image(_ path: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "GET", "/v1/\(path)",
                headers: [("Content-Type", "application/json"), (sesacKey, key), ("Authorization", token)])
        }

        // UriBoard: Router/LikeRouter.swift `.postLike`
        static func postLike(id: String, _ query: PostLikeQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts/\(id)/like", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/LikeRouter.swift `.postReboard`
        static func postReboard(id: String, _ query: PostLikeQuery, token: String, key: String) throws -> TwinRequest {
            try .json("POST", "/v1/posts/\(id)/like-2", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/CommentRouter.swift `.postComment`
        static func postComment(_ query: CommentQuery, postId: String, token: String, key: String) throws -> TwinRequest
        {
            try .json(
                "POST", "/v1/posts/\(postId)/comments", query, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/CommentRouter.swift `.deleteComment`
        static func deleteComment(postId: String, commentId: String, token: String, key: String) -> TwinRequest {
            TwinRequest(
                "DELETE", "/v1/posts/\(postId)/comments/\(commentId)",
                headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/FollowRouter.swift `.postFollow`
        static func postFollow(id: String, token: String, key: String) -> TwinRequest {
            TwinRequest("POST", "/v1/follow/\(id)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/FollowRouter.swift `.deleteFollow`
        static func deleteFollow(id: String, token: String, key: String) -> TwinRequest {
            TwinRequest("DELETE", "/v1/follow/\(id)", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/ProfileRouter.swift `.myProfile`
        static func myProfile(token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/me/profile", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/ProfileRouter.swift `.otherProfile`
        static func otherProfile(userId: String, token: String, key: String) -> TwinRequest {
            TwinRequest("GET", "/v1/users/\(userId)/profile", headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/ProfileRouter.swift `.updateProfile` + Network/NetworkManager.swift `updateProfile`: a
        // `nick` text part (no type), then the `profile` image always (the current one when only the nick
        // changes), named `"\(data).jpg"`, declared `image/jpg`.
        static func updateProfile(_ query: ProfileQuery, token: String, key: String) -> TwinRequest {
            var form = TwinMultipart()
            form.text("nick", query.nick)
            form.file(
                "profile", filename: "\(query.profile.count) bytes.jpg", mimeType: "image/jpg", bytes: query.profile)
            return .multipart(
                "PUT", "/v1/users/me/profile", form, headers: [("Authorization", token), (sesacKey, key)])
        }

        // UriBoard: Router/PaymentsRouter.swift `.validation`
        static func paymentsValidation(_ query: PaymentsValidationQuery, token: String, key: String) throws
            -> TwinRequest
        {
            try .json("POST", "/v1/payments/validation", query, headers: [("Authorization", token), (sesacKey, key)])
        }
    }

    // MARK: Session (UserDefaults/UserDefaultsManager.swift + Network/InterceptorManager.swift)

    /// The signed-in app: what `UserDefaultsManager` keeps, and `InterceptorManager` around every request that
    /// goes through `NetworkManager` (uploads and the profile edit included).
    actor Session {
        let client: TwinClient
        let userEmail: String
        let password: String
        private(set) var userId = ""
        private(set) var nickname = ""
        private(set) var profileImage = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        /// What the interceptor did, for the journeys to assert on.
        private(set) var refreshes = 0
        private(set) var lastRefreshStatus: Int?
        /// `BaseViewController.errorHandling(419)`: "다시 로그인 해 주세요" → `SignInViewController`.
        private(set) var sentToSignIn = 0

        init(client: TwinClient, email: String, password: String) {
            self.client = client
            self.userEmail = email
            self.password = password
        }

        /// SignUpViewModel (email check, then join; nick ≥ 2 characters, password ≥ 8) and SignInViewModel.
        static func signUp(
            _ client: TwinClient, nick: String = TestEnvironment.unique("uri"),
            password: String = "password123"
        ) async throws -> Session {
            let email = "\(nick)@example.com"
            let checked = try await client.call(
                try Router.emailValidation(.init(email: email), key: client.apiKey),
                as: EmailValidationModel.self)
            #expect(!checked.message.isEmpty)
            let joined = try await client.call(
                try Router.signUp(.init(email: email, password: password, nick: nick), key: client.apiKey),
                as: SignUpModel.self)
            #expect(joined.email == email && joined.nick == nick)
            let session = Session(client: client, email: email, password: password)
            let signedIn = try await session.signIn()
            #expect(signedIn.user_id == joined.id)
            return session
        }

        /// SignInViewModel: login, then every field into UserDefaults.
        @discardableResult
        func signIn() async throws -> SignInModel {
            let model = try await client.call(
                try Router.signIn(.init(email: userEmail, password: password), key: client.apiKey),
                as: SignInModel.self)
            userId = model.user_id
            nickname = model.nick
            profileImage = model.profileImage ?? ""
            accessToken = model.accessToken
            refreshToken = model.refreshToken
            return model
        }

        /// EditProfileViewModel: what it stores after a successful edit.
        func edited(_ profile: ProfileModel) {
            nickname = profile.nick
            profileImage = profile.profileImage ?? ""
        }

        /// A request through `InterceptorManager`: `adapt` puts the current access token in `Authorization`;
        /// `retry` handles 419 only: refresh (without an interceptor, `validate(200..<300)`), store the new access
        /// token, retry — at most `retryLimit` (3) times. A failed refresh gives up with the original 419.
        func send(_ build: @Sendable (String) throws -> TwinRequest) async throws -> GatewayClient.Reply {
            var reply = try await client.send(try build(accessToken))
            var retryCount = 0
            while reply.status == 419, retryCount < 3 {
                let renewed = try await client.send(
                    Router.tokenRefresh(access: accessToken, refresh: refreshToken, key: client.apiKey))
                lastRefreshStatus = renewed.status
                guard (200..<300).contains(renewed.status),
                    let model = try? client.decode(TokenRefreshModel.self, from: renewed)
                else {
                    sentToSignIn += 1
                    return reply
                }
                accessToken = model.accessToken
                refreshes += 1
                retryCount += 1
                reply = try await client.send(try build(accessToken))
            }
            return reply
        }

        /// `NetworkManager.requestAPIResult`: through the interceptor, `validate(200..<300)`, the app's type.
        func call<Model: Decodable>(
            _ type: Model.Type, status: Int = 200, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable (String) throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await send(build)
            #expect(reply.status == status, "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        // MARK: Time passing (test-side only, as in AppSession)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        /// The refresh token's 14 days pass (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// HomeViewController: pages `readPosts` from `next: nil` until `next_cursor` is "0" (the prefetch trigger
    /// stops there), appending every page; returns the post ids in the order shown and the pages' cursors.
    static func homeFeed(_ session: Session, key: String) async throws -> (ids: [String], cursors: [String]) {
        var ids: [String] = []
        var cursors: [String] = []
        var next: String? = nil
        repeat {
            let query = ReadPostsQueryString(next: next, limit: "10")
            let page = try await session.call(ReadPostsModel.self) { Router.readPosts(query, token: $0, key: key) }
            #expect(page.data.count <= 10)
            ids += page.data.map(\.id)
            cursors.append(page.cursor)
            next = page.cursor
        } while next != "0" && cursors.count < 5_000
        #expect(next == "0", "the board's feed never ended")
        return (ids, cursors)
    }
}

@Suite("UriBoard twin")
struct UriBoardTwinTests {
    typealias App = UriBoardTwin

    /// Sign-up screen (email check, join, the same email again), sign-in, the home tab, a text post and a post
    /// with two photos (upload, then create), the home feed paged to its end, a post's detail and its photos.
    @Test func signUpPostWithPhotosAndPageTheBoard() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let writer = try await App.Session.signUp(client)
        let writerId = await writer.userId

        // The sign-up screen again with the taken email: the check fails, so the app keeps the join button off.
        let email = writer.userEmail
        let taken = try await client.send(try App.Router.emailValidation(.init(email: email), key: key))
        #expect(taken.status == 409, "\(taken.text)")

        // The home tab right after sign-in.
        let first = try await writer.call(App.ReadPostsModel.self) {
            App.Router.readPosts(.init(next: nil, limit: "10"), token: $0, key: key)
        }
        #expect(first.data.count <= 10)

        // PostViewModel without photos: createPost with `files: []`.
        let tag = TestEnvironment.unique("우리")
        let text = try await writer.call(App.CreatePostModel.self) {
            try App.Router.createPost(.init(content: "오늘 점심 뭐 드셨어요? #\(tag) #점심", files: []), token: $0, key: key)
        }
        #expect(text.product_id == "uriBoard")
        #expect(text.creator.user_id == writerId)
        let writerNick = await writer.nickname
        #expect(text.creator.nick == writerNick)
        #expect(text.files == [])
        #expect(text.hashTags == [tag, "점심"])
        #expect(text.likes.isEmpty && text.likes2.isEmpty && text.comments.isEmpty)

        // PostViewModel with photos: upload, then createPost with the paths.
        let uploaded = try await writer.call(App.ImageFilesModel.self) {
            App.Router.imageUpload([TestImages.png, TestImages.png], token: $0, key: key)
        }
        #expect(uploaded.files.count == 2)
        let photo = try await writer.call(App.CreatePostModel.self) {
            try App.Router.createPost(.init(content: "창밖 풍경", files: uploaded.files), token: $0, key: key)
        }
        #expect(photo.files == uploaded.files)

        // The home tab pages the whole board: both posts, newest first, nothing twice, ending with "0".
        let feed = try await App.homeFeed(writer, key: key)
        #expect(Set(feed.ids).count == feed.ids.count, "a post was shown twice while paging")
        let photoIndex = try #require(feed.ids.firstIndex(of: photo.post_id), "the photo post is not on the board")
        let textIndex = try #require(feed.ids.firstIndex(of: text.post_id), "the text post is not on the board")
        #expect(photoIndex < textIndex)
        #expect(feed.cursors.last == "0")

        // A reader opens the photo post (BoardDetailViewModel) and Kingfisher loads its photos.
        let reader = try await App.Session.signUp(client)
        let detail = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: photo.post_id, token: $0, key: key)
        }
        #expect(detail.id == photo.post_id && detail.productId == "uriBoard" && detail.files == uploaded.files)
        #expect(detail.creator.user_id == writerId)
        for path in detail.files {
            let image = try await reader.send { App.Router.image(path, token: $0, key: key) }
            #expect(image.status == 200, "\(path): \(image.status)")
            #expect(image.body == TestImages.png)
        }
    }

    /// BoardTableViewModel / BoardDetailViewModel: like and reboard (like-2) toggled from the lists the post
    /// carries; CommentSheetViewModel: comment, see it, delete it; the writer deletes the post (410 afterwards).
    @Test func likeReboardCommentAndDelete() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let writer = try await App.Session.signUp(client)
        let reader = try await App.Session.signUp(client)
        let readerId = await reader.userId
        let post = try await writer.call(App.CreatePostModel.self) {
            try App.Router.createPost(.init(content: "스위프트 6 마이그레이션 후기 #swift", files: []), token: $0, key: key)
        }
        let postId = post.post_id

        // Like: the list does not contain me → like_status true; then the detail is reloaded.
        let loaded = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        let liked = try await reader.call(App.PostLikeModel.self) {
            try App.Router.postLike(
                id: postId, .init(like_status: !loaded.likes.contains(readerId)), token: $0, key: key)
        }
        #expect(liked.like_status == true)
        let afterLike = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(afterLike.likes == [readerId])

        // Reboard (like-2) the same way.
        let reboarded = try await reader.call(App.PostLikeModel.self) {
            try App.Router.postReboard(
                id: postId, .init(like_status: !afterLike.likes2.contains(readerId)), token: $0, key: key)
        }
        #expect(reboarded.like_status == true)
        let afterReboard = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(afterReboard.likes2 == [readerId])
        #expect(afterReboard.likes == [readerId])

        // The heart again: the list contains me → like_status false.
        let unliked = try await reader.call(App.PostLikeModel.self) {
            try App.Router.postLike(
                id: postId, .init(like_status: !afterReboard.likes.contains(readerId)), token: $0, key: key)
        }
        #expect(unliked.like_status == false)
        let afterUnlike = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(afterUnlike.likes.isEmpty)
        #expect(afterUnlike.likes2 == [readerId])

        // The comment sheet: send, reload, delete from the cell, reload.
        let comment = try await reader.call(App.CommentModel.self) {
            try App.Router.postComment(.init(content: "저도 해봤는데 좋더라고요"), postId: postId, token: $0, key: key)
        }
        #expect(comment.content == "저도 해봤는데 좋더라고요")
        #expect(comment.creator.user_id == readerId)
        let withComment = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(withComment.comments.map(\.comment_id) == [comment.comment_id])
        let second = try await writer.call(App.CommentModel.self) {
            try App.Router.postComment(.init(content: "감사합니다!"), postId: postId, token: $0, key: key)
        }
        let twoComments = try await writer.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(
            twoComments.comments.map(\.comment_id) == [second.comment_id, comment.comment_id],
            "comments come newest first")

        let removed = try await reader.send {
            App.Router.deleteComment(postId: postId, commentId: comment.comment_id, token: $0, key: key)
        }
        #expect((200..<300).contains(removed.status), "\(removed.status) \(removed.text)")
        let afterDelete = try await reader.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: postId, token: $0, key: key)
        }
        #expect(afterDelete.comments.map(\.comment_id) == [second.comment_id])

        // The writer deletes the post from its detail screen; the reader's next load fails (410).
        let deleted = try await writer.send { App.Router.deletePost(id: postId, token: $0, key: key) }
        #expect((200..<300).contains(deleted.status), "\(deleted.status) \(deleted.text)")
        let gone = try await reader.send { App.Router.readDetailPost(id: postId, token: $0, key: key) }
        #expect(gone.status == 410, "\(gone.status) \(gone.text)")
    }

    /// ProfileViewModel: someone's profile opened from a post, follow (the button reads `followers`), the
    /// profile reloaded; my own profile; unfollow; EditProfileViewModel renames (2–8 characters) with a photo,
    /// and the new nick shows right away on my profile, on the other's view of me and on my comment.
    @Test func profileFollowUnfollowAndEdit() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let ann = try await App.Session.signUp(client)
        let ben = try await App.Session.signUp(client)
        let annId = await ann.userId, benId = await ben.userId
        let post = try await ann.call(App.CreatePostModel.self) {
            try App.Router.createPost(.init(content: "동네 맛집 추천 받아요", files: []), token: $0, key: key)
        }
        let comment = try await ben.call(App.CommentModel.self) {
            try App.Router.postComment(.init(content: "역 앞 국밥집이요"), postId: post.post_id, token: $0, key: key)
        }

        // Ben taps Ann's name on the post: her profile.
        let annProfile = try await ben.call(App.ProfileModel.self) {
            App.Router.otherProfile(userId: annId, token: $0, key: key)
        }
        #expect(annProfile.user_id == annId)
        #expect(annProfile.email == nil, "another user's profile carries no email")
        #expect(annProfile.posts.contains(post.post_id))
        let following = annProfile.followers.contains { $0.user_id == benId }
        #expect(!following)

        // The follow button: `!following` → follow; then the profile is reloaded.
        let followed = try await ben.call(App.FollowModel.self) {
            App.Router.postFollow(id: annId, token: $0, key: key)
        }
        #expect(followed.status == true)
        let benNick = await ben.nickname, annNick = await ann.nickname
        #expect(followed.nick == benNick)
        #expect(followed.opponent == annNick)
        let reloaded = try await ben.call(App.ProfileModel.self) {
            App.Router.otherProfile(userId: annId, token: $0, key: key)
        }
        #expect(reloaded.followers.map(\.user_id) == [benId])

        // Ben's own profile tab.
        let mine = try await ben.call(App.ProfileModel.self) { App.Router.myProfile(token: $0, key: key) }
        #expect(mine.user_id == benId)
        #expect(mine.email == ben.userEmail)
        #expect(mine.following.map(\.user_id) == [annId])

        // The button again: unfollow, reload.
        let unfollowed = try await ben.call(App.FollowModel.self) {
            App.Router.deleteFollow(id: annId, token: $0, key: key)
        }
        #expect(unfollowed.status == false)
        let afterUnfollow = try await ben.call(App.ProfileModel.self) {
            App.Router.otherProfile(userId: annId, token: $0, key: key)
        }
        #expect(afterUnfollow.followers.isEmpty)

        // Ben edits his profile: a new nick (the screen allows 2–8 characters) and a photo.
        let newNick = "ub" + String(UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(6)).lowercased()
        let edited = try await ben.call(App.ProfileModel.self) {
            App.Router.updateProfile(.init(nick: newNick, profile: TestImages.png), token: $0, key: key)
        }
        #expect(edited.nick == newNick)
        let image = try #require(edited.profileImage, "the edit's answer has no profileImage")
        await ben.edited(edited)
        let photo = try await ben.send { App.Router.image(image, token: $0, key: key) }
        #expect(photo.status == 200)
        #expect(photo.body == TestImages.png)

        let renamed = try await ben.call(App.ProfileModel.self) { App.Router.myProfile(token: $0, key: key) }
        #expect(renamed.nick == newNick && renamed.profileImage == image)
        let seenByAnn = try await ann.call(App.ProfileModel.self) {
            App.Router.otherProfile(userId: benId, token: $0, key: key)
        }
        #expect(seenByAnn.nick == newNick)
        let detail = try await ann.call(App.ReadDetailPostModel.self) {
            App.Router.readDetailPost(id: post.post_id, token: $0, key: key)
        }
        let shown = try #require(detail.comments.first { $0.comment_id == comment.comment_id })
        #expect(shown.creator.nick == newNick)
        #expect(shown.creator.profileImage == image)
    }

    /// PaymentsViewController: the 후원하기 tab pays 100 won for the board's funding post (a post without a
    /// price: the app states `price: 100` and `productName` in the April-2024 body) and validates it.
    @Test func donationThroughIamport() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        // `APIKey.fundingId`: a post the board's operator wrote once (with the app; it has no price).
        let operatorSession = try await App.Session.signUp(client)
        let funding = try await operatorSession.call(App.CreatePostModel.self) {
            try App.Router.createPost(.init(content: "우리보드 후원 안내", files: []), token: $0, key: key)
        }
        let member = try await App.Session.signUp(client)
        let memberId = await member.userId

        // The iamport SDK's part: merchant_uid "ios_<key>_<seconds>" as the app builds it (the suffix keeps the
        // twins, who share one SesacKey here, from reusing each other's merchant_uid), amount "100".
        let merchantUid = "ios_\(key)_\(Int(Date().timeIntervalSince1970))_\(TestEnvironment.unique("ub"))"
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: """
                {"merchant_uid":"\(merchantUid)","amount":100,"name":"우리보드 후원하기"}
                """)
        #expect(paid.status == 200, "\(paid.text)")
        let impUid = try #require(try paid.json.string("imp_uid"))

        let query = App.PaymentsValidationQuery(
            imp_uid: impUid, post_id: funding.post_id, productName: "우리보드 후원", price: 100)
        let validated = try await member.send { try App.Router.paymentsValidation(query, token: $0, key: key) }
        #expect(validated.status == 200, "\(validated.text)")
        withKnownIssue(
            "UriBoard defect: Model/Payments/PaymentsValidationModel.swift requires `imp_uid`, which LSLP's validation answer never carried (it mirrors the request, not the Payment)"
        ) {
            _ = try client.decode(App.PaymentsValidationModel.self, from: validated)
        }
        let payment = try validated.json
        #expect(payment.string("post_id") == funding.post_id)
        #expect(payment.string("buyer_id") == memberId)
        #expect(payment.string("merchant_uid") == merchantUid)
        #expect(payment["price"] as? Int == 100)
        #expect(payment.string("productName") == "우리보드 후원")

        // The same imp_uid again (the callback fires twice): 409.
        let twice = try await member.send { try App.Router.paymentsValidation(query, token: $0, key: key) }
        #expect(twice.status == 409, "\(twice.text)")
        // The funding post names its donor.
        let post = try await member.send { App.Router.readDetailPost(id: funding.post_id, token: $0, key: key) }
        #expect(try post.json["buyers"] as? [String] == [memberId])
    }

    /// InterceptorManager: an expired access token is renewed (lowercase `refresh` header) and the request
    /// retried; once the refresh token has expired too, the refresh fails, the home screen gets the 419 and sends
    /// the user to sign-in, and signing in again works.
    @Test func expiredTokensRefreshThenSignInAgain() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let member = try await App.Session.signUp(client)

        try await member.letAccessTokenExpire()
        let home = try await member.send { App.Router.readPosts(.init(next: nil, limit: "10"), token: $0, key: key) }
        #expect(home.status == 200, "\(home.status) \(home.text)")
        let refreshes = await member.refreshes, firstRefresh = await member.lastRefreshStatus
        #expect(refreshes == 1)
        #expect(firstRefresh == 200)
        _ = try client.decode(App.ReadPostsModel.self, from: home)

        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let expired = try await member.send { App.Router.readPosts(.init(next: nil, limit: "10"), token: $0, key: key) }
        #expect(expired.status == 419)
        let secondRefresh = await member.lastRefreshStatus, sentToSignIn = await member.sentToSignIn
        #expect(secondRefresh == 418)
        #expect(sentToSignIn == 1)

        try await member.signIn()
        let after = try await member.call(App.ReadPostsModel.self) {
            App.Router.readPosts(.init(next: nil, limit: "10"), token: $0, key: key)
        }
        #expect(after.data.count <= 10)
    }
}
