import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// LZLSLP ("Gasoline", github.com/alpaka99/LZLSLP, Aug–Sep 2024, G1): a small community. A launch screen decides
/// between the login screen and the tab bar; members sign up, log in, read a community list of posts
/// (`product_id` "gasoline_post", 8 per page, a thumbnail per row), write posts with up to five photos, open a
/// post to see its photos and comments, "fire" (like) it and comment on it, and donate a coffee (1 200 won) through
/// the iamport SDK.
///
/// The app's network layer (LZLSLP/LZLSLP/Sources/…): `Utils/Routers/URLRouter.swift` builds a `URLRequest` from
/// `"http://" + BASE_URL + "/v1" + path` (the feed's query is part of the path string:
/// `/posts?next=\(next)&limit=\(limit)&product_id=\(productId)`), the method as a lowercase raw value
/// (`"get"`, `"post"`; Foundation normalizes the standard methods to upper case, so the wire carries `GET`/`POST`),
/// headers from a `[String: String]` per case (`SesacKey`, `Content-Type: application/json` — also on GETs — or
/// `multipart/form-data` for uploads) and, when the parameters are not empty, a body written by
/// `JSONSerialization.data(withJSONObject:)` from a `[String: Any]` (slashes escaped as `\/`).
/// `Utils/Managers/NetworkManager.swift` sends it with `AF.request(…).validate(statusCode: 200..<300)`; uploads put
/// every photo in a `files` part named `test`, declared `image/jpeg`. Two interceptors
/// (`Utils/Interceptor/…`): `PostInterceptor` (posts, comments, likes, uploads, payments) adds `Authorization`
/// and, on 419, sends `GET /v1/auth/refresh` through `AuthInterceptor`, stores the new access token and retries;
/// `AuthInterceptor` (launch check, images) adds `Authorization` and `Refresh` and refreshes only on **401**
/// (`StatusCode.invalidAccessToken = 401`). Models are decoded with a plain `JSONDecoder()`; dates stay strings,
/// and the community list keeps only rows whose `createdAt` parses with `yyyy-MM-dd'T'HH:mm:ss.SSSZ`.
///
/// Mirrored files: Utils/Routers/URLRouter.swift, Utils/Managers/NetworkManager.swift,
/// Utils/Interceptor/AuthInterceptor.swift, Utils/Interceptor/PostInterceptor.swift, Utils/Models/SignupForm.swift,
/// Utils/Constants/DateFormatter.swift, Domains/*.swift and the view models and controllers of Presenters/Launch,
/// Login, Signup, Community, Post, DetailPost, Donation and Payment.
///
/// Not exercised: router cases no screen reaches (`validation/email`, `users/withdraw`, `like-2`, follow, profile,
/// hashtag, `payments/me`; most of them carry literal `:id` placeholders in their paths). `AuthInterceptor`'s
/// 401-only refresh is not driven either: every image load follows a `PostInterceptor` call that has just refreshed.
///
/// Departures: the `SesacKey` value is the test stack's key (the app reads `SeSAC_Key` from Info.plist); photos
/// are the PNG test image declared as JPEG (the app sends `jpegData(compressionQuality: 0.8)`); the iamport web
/// view is replaced by the PortOne test server's sandbox, and `merchant_uid` gets a unique tail; the app's
/// unbounded retry after a refresh is bounded at three here; the launch screen's 2.5 s delay is left out.
enum LZLSLPTwin {
    // MARK: Constants (Utils/Routers/URLRouter.swift, Presenters/Post/PostViewController.swift)

    /// `PostForm.product_id` and `getPosts(productId:)`'s default.
    static let productId = "gasoline_post"
    /// `PaymentType.validation`: the donation post, hard-coded (a post of the LSLP server the app was built for).
    static let donationPostId = "66d4e45e5a9c85013f8f0314"
    /// `PaymentViewController.leftBarButtonItem`: closing the payment sheet "validates" this imp_uid.
    static let backButtonImpUid = "imp_892335070167"
    /// `CommunityViewModel`: `getPosts(nextCursor:limit: 8, …)`.
    static let pageSize = 8

    // MARK: Models

    // LZLSLP: Utils/Models/SignupForm.swift (the sign-up screen passes nil phone and birthday)
    struct SignUpForm: Sendable {
        let email: String
        let password: String
        let nick: String
        let phoneNum: String?
        let birthDay: String?
    }

    // LZLSLP: Domains/AuthRepository.swift
    struct SignUpResponse: Decodable, Sendable {
        let userId: String
        let email: String
        let nick: String

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case email, nick
        }
    }

    // LZLSLP: Presenters/Login/LoginViewModel.swift
    struct LoginResponse: Decodable, Sendable {
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

    // LZLSLP: Utils/Managers/NetworkManager.swift
    struct RefreshTokenResponse: Decodable, Sendable { let accessToken: String }

    // LZLSLP: Presenters/Community/CommunityViewModel.swift
    struct GetPostResponse: Decodable, Sendable {
        let data: [PostResponse]
        let nextCursor: String

        enum CodingKeys: String, CodingKey {
            case data
            case nextCursor = "next_cursor"
        }
    }

    // LZLSLP: Presenters/Post/PostViewModel.swift (`title` and `content` required; `content1…5` commented out)
    struct PostResponse: Decodable, Sendable {
        let postId: String
        let productId: String?
        let title: String
        let content: String
        let createdAt: String
        let creator: Creator
        let files: [String]
        let likes: [String]
        let likes2: [String]
        let buyers: [String]
        let hashTags: [String]
        let comments: [CommentResponse]

        enum CodingKeys: String, CodingKey {
            case postId = "post_id"
            case productId = "product_id"
            case title, content, createdAt, creator, files, likes, likes2, buyers, hashTags, comments
        }
    }

    // LZLSLP: Presenters/Post/PostViewModel.swift
    struct Creator: Decodable, Sendable {
        let userId: String
        let nick: String
        let profileImage: String?

        enum CodingKeys: String, CodingKey {
            case userId = "user_id"
            case nick, profileImage
        }
    }

    // LZLSLP: Presenters/Post/PostViewModel.swift
    struct ImageUploadResponse: Decodable, Sendable { let files: [String] }

    // LZLSLP: Presenters/DetailPost/DetailPostViewModel.swift
    struct LikeStatus: Decodable, Sendable {
        let likeStatus: Bool

        enum CodingKeys: String, CodingKey { case likeStatus = "like_status" }
    }

    // LZLSLP: Presenters/DetailPost/DetailPostViewModel.swift
    struct CommentResponse: Decodable, Sendable {
        let commentId: String
        let content: String
        let createdAt: String
        let creator: Creator

        enum CodingKeys: String, CodingKey {
            case commentId = "comment_id"
            case content, createdAt, creator
        }
    }

    // LZLSLP: Presenters/Donation/DonationViewModel.swift
    struct PaymentValidationResponse: Decodable, Sendable {
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

    // LZLSLP: Presenters/Post/PostViewController.swift
    struct PostForm: Sendable {
        let title: String
        let content: String
        var files: [String]
        let product_id: String = LZLSLPTwin.productId
    }

    /// `CommunityViewModel`: a row is shown only if `createdAt` parses with `ConstDateFormatter.iso8601format`
    /// (a plain `DateFormatter()`, Utils/Constants/DateFormatter.swift).
    static func communityShows(_ post: PostResponse) -> Bool {
        let formatter = DateFormatter()
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return formatter.date(from: post.createdAt) != nil
    }

    // MARK: Router (Utils/Routers/URLRouter.swift)

    enum Router {
        static let sesacKey = "SesacKey"

        /// `URLRouter.build()`: method, headers, and a `JSONSerialization` body only when there are parameters.
        /// `HTTPMethod` raw values are lowercase; `URLRequest.httpMethod` normalizes them to upper case.
        static func build(
            _ method: String, _ path: String, headers: [(String, String)], parameters: [String: Any] = [:]
        ) throws -> TwinRequest {
            var request = TwinRequest(method.uppercased(), "/v1" + path, headers: headers)
            if let mark = path.firstIndex(of: "?") {
                request.path = "/v1" + String(path[..<mark])
                request.query = String(path[path.index(after: mark)...])
            }
            if !parameters.isEmpty { request.body = try JSONSerialization.data(withJSONObject: parameters) }
            return request
        }

        /// `HTTPHeaderKey.applicationJson` + `.sesacKey`: most cases.
        static func jsonHeaders(_ key: String) -> [(String, String)] {
            [("Content-Type", "application/json"), (sesacKey, key)]
        }

        // AuthType.join (phoneNum/birthDay `?? ""`)
        static func join(_ form: SignUpForm, key: String) throws -> TwinRequest {
            try build(
                "post", "/users/join", headers: jsonHeaders(key),
                parameters: [
                    "email": form.email, "password": form.password, "nick": form.nick,
                    "phoneNum": form.phoneNum ?? "", "birthDay": form.birthDay ?? "",
                ])
        }

        // AuthType.login
        static func login(email: String, password: String, key: String) throws -> TwinRequest {
            try build(
                "post", "/users/login", headers: jsonHeaders(key), parameters: ["email": email, "password": password])
        }

        // AuthType.accessToken: only `SesacKey`; the interceptors add `Authorization` and `Refresh`.
        static func accessToken(key: String) throws -> TwinRequest {
            try build("get", "/auth/refresh", headers: [(sesacKey, key)])
        }

        // PostType.postFiles + NetworkManager.uploadDataCall: `files` parts named "test", declared image/jpeg.
        // (Alamofire replaces the router's bare `multipart/form-data` with one that names the boundary.)
        static func postFiles(_ photos: [[UInt8]], key: String) -> TwinRequest {
            var form = TwinMultipart()
            for photo in photos { form.file("files", filename: "test", mimeType: "image/jpeg", bytes: photo) }
            return .multipart("POST", "/v1/posts/files", form, headers: [(sesacKey, key)])
        }

        // PostType.postPost
        static func postPost(_ form: PostForm, key: String) throws -> TwinRequest {
            try build(
                "post", "/posts", headers: jsonHeaders(key),
                parameters: [
                    "title": form.title, "content": form.content, "files": form.files, "product_id": form.product_id,
                ])
        }

        // PostType.getPosts: the query is written into the path string.
        static func getPosts(nextCursor: String, limit: Int = pageSize, key: String) throws -> TwinRequest {
            try build(
                "get", "/posts?next=\(nextCursor)&limit=\(limit)&product_id=\(productId)", headers: jsonHeaders(key))
        }

        // PostType.getPost
        static func getPost(id: String, key: String) throws -> TwinRequest {
            try build("get", "/posts/\(id)", headers: jsonHeaders(key))
        }

        // CommentType.postComment
        static func postComment(id: String, comment: String, key: String) throws -> TwinRequest {
            try build("post", "/posts/\(id)/comments", headers: jsonHeaders(key), parameters: ["content": comment])
        }

        // LikeType.likePost
        static func likePost(id: String, _ likeStatus: Bool, key: String) throws -> TwinRequest {
            try build("post", "/posts/\(id)/like", headers: jsonHeaders(key), parameters: ["like_status": likeStatus])
        }

        // ImageType.image: "/\(imageURL)" — a post without photos gives "" and so `GET /v1/`.
        static func image(_ path: String, key: String) throws -> TwinRequest {
            try build("get", "/\(path)", headers: jsonHeaders(key))
        }

        // PaymentType.validation: `post_id` is a constant.
        static func paymentValidation(impUid: String, key: String) throws -> TwinRequest {
            try build(
                "post", "/payments/validation", headers: jsonHeaders(key),
                parameters: ["imp_uid": impUid, "post_id": donationPostId])
        }
    }

    // MARK: One installed app (UserDefaults + NetworkManager + the two interceptors)

    enum Screen: Sendable { case login, community }

    struct InterceptorFailure: Error, CustomStringConvertible {
        let description: String
    }

    actor Device {
        let client: TwinClient
        let key: String
        /// UserDefaults: `AccessToken`, `RefreshToken`, `UserInfo` (saved by LoginViewModel).
        private(set) var accessToken: String?
        private(set) var refreshToken: String?
        private(set) var userId: String?
        /// The status of every `GET /v1/auth/refresh` this device sent.
        private(set) var refreshStatuses: [Int] = []

        init(_ client: TwinClient) {
            self.client = client
            self.key = client.apiKey
        }

        /// LaunchViewModel: `requestAuthAPI(of: RefreshTokenResponse.self, router: .auth(.accessToken),
        /// interceptor: AuthInterceptor())`. Success → tab bar, any failure → login. The new token is not saved.
        func launch() async throws -> (screen: Screen, status: Int?) {
            guard accessToken != nil, refreshToken != nil else { return (.login, nil) }  // adapt fails: nothing sent
            let reply = try await withAuthInterceptor(try Router.accessToken(key: key))
            refreshStatuses.append(reply.status)
            guard (200..<300).contains(reply.status),
                (try? client.decode(RefreshTokenResponse.self, from: reply)) != nil
            else { return (.login, reply.status) }
            return (.community, reply.status)
        }

        /// LoginViewModel: login, then the three values into UserDefaults.
        @discardableResult
        func login(email: String, password: String) async throws -> LoginResponse {
            let model = try await client.call(
                try Router.login(email: email, password: password, key: key), as: LoginResponse.self)
            accessToken = model.accessToken
            refreshToken = model.refreshToken
            userId = model.userId
            return model
        }

        /// `AuthInterceptor`: adapt adds `Authorization` and `Refresh`; retry only on 401 (the refresh is sent
        /// without an interceptor, validated, its token saved, then the request is adapted and sent again). Alamofire
        /// calls `retry` only for a failed request: `validated: false` (no `.validate()`) never retries.
        func withAuthInterceptor(_ request: TwinRequest, validated: Bool = true) async throws -> GatewayClient.Reply {
            guard let access = accessToken, let refresh = refreshToken else {
                throw InterceptorFailure(description: "AuthInterceptor.adapt: no tokens (tokenURLBuildError)")
            }
            var adapted = request
            adapted.headers += [("Authorization", access), ("Refresh", refresh)]
            let reply = try await client.send(adapted)
            guard validated, reply.status == 401 else { return reply }
            var renew = try Router.accessToken(key: key)
            renew.headers += [("Authorization", access), ("Refresh", refresh)]
            let renewed = try await client.send(renew)
            refreshStatuses.append(renewed.status)
            guard (200..<300).contains(renewed.status),
                let model = try? client.decode(RefreshTokenResponse.self, from: renewed)
            else { return reply }
            accessToken = model.accessToken
            var again = request
            again.headers += [("Authorization", model.accessToken), ("Refresh", refresh)]
            return try await client.send(again)
        }

        /// `PostInterceptor`: adapt adds `Authorization`; on 419 the refresh goes through `AuthInterceptor` (no
        /// `validate`, so only the decoding decides), the new access token is saved and the request retried.
        func withPostInterceptor(_ build: @Sendable () throws -> TwinRequest) async throws -> GatewayClient.Reply {
            guard accessToken != nil else {
                throw InterceptorFailure(description: "PostInterceptor.adapt: no access token (tokenURLBuildError)")
            }
            var reply = try await client.send(adapt(try build()))
            var retries = 0
            while reply.status == 419, retries < 3 {
                let renewed = try await withAuthInterceptor(try Router.accessToken(key: key), validated: false)
                refreshStatuses.append(renewed.status)
                guard let model = try? client.decode(RefreshTokenResponse.self, from: renewed) else { return reply }
                accessToken = model.accessToken
                retries += 1
                reply = try await client.send(adapt(try build()))
            }
            return reply
        }

        private func adapt(_ request: TwinRequest) -> TwinRequest {
            var adapted = request
            adapted.headers.append(("Authorization", accessToken ?? ""))
            return adapted
        }

        /// `PostRepository.requestPostAPI` / `PaymentRepository`: validated 2xx, then the app's type.
        func call<Model: Decodable>(
            _ type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation,
            _ build: @Sendable () throws -> TwinRequest
        ) async throws -> Model {
            let reply = try await withPostInterceptor(build)
            #expect(
                (200..<300).contains(reply.status), "\(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            let token = try #require(accessToken)
            accessToken = try await TwinTokens.expired(sameSessionAs: token, userId: try #require(userId))
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            let token = try #require(accessToken)
            try await TwinTokens.expireRefreshToken(sessionOf: token)
        }
    }

    /// SignupViewController → SignupViewModel (join; nil phone and birthday), then the login screen.
    static func signUpAndLogIn(_ client: TwinClient, nick: String = TestEnvironment.unique("gas")) async throws -> (
        device: Device, email: String, password: String
    ) {
        let email = "\(nick)@example.com", password = "gasoline1"
        let joined = try await client.call(
            try Router.join(
                SignUpForm(email: email, password: password, nick: nick, phoneNum: nil, birthDay: nil),
                key: client.apiKey),
            as: SignUpResponse.self)
        #expect(joined.email == email && joined.nick == nick)
        let device = Device(client)
        let login = try await device.login(email: email, password: password)
        #expect(login.userId == joined.userId && login.nick == nick && login.profileImage == nil)
        return (device, email, password)
    }

    /// CommunityViewModel: from cursor "" (first load and pull-to-refresh) until `next_cursor` is "0", 8 per page;
    /// returns the rows shown (after the `createdAt` filter) and the cursors.
    static func community(_ device: Device) async throws -> (posts: [PostResponse], cursors: [String]) {
        let key = device.key
        var posts: [PostResponse] = []
        var cursors: [String] = []
        var next = ""
        repeat {
            let cursor = next
            let page = try await device.call(GetPostResponse.self) { try Router.getPosts(nextCursor: cursor, key: key) }
            #expect(page.data.count <= pageSize)
            let shown = page.data.filter(communityShows)
            #expect(shown.count == page.data.count, "rows dropped: createdAt does not parse as the app expects")
            posts += shown
            cursors.append(page.nextCursor)
            next = page.nextCursor
        } while next != "0" && cursors.count < 1_000
        #expect(next == "0", "the community list never ended")
        return (posts, cursors)
    }
}

@Suite("LZLSLP twin", .serialized)
struct LZLSLPTwinTests {
    typealias App = LZLSLPTwin

    /// Fresh install: the launch check sends nothing and shows login; sign-up and login; the community tab; a post
    /// with two photos, one with a photo and no title, seven text posts; the list paged from "" to "0" with its
    /// thumbnails (a row without photos asks for `GET /v1/`); a post's detail and its photos.
    @Test func freshInstallSignUpPostAndPageTheCommunity() async throws {
        let client = try TwinClient()
        let key = client.apiKey

        // LaunchViewModel on a fresh install: AuthInterceptor.adapt finds no tokens, nothing is sent → login.
        let fresh = App.Device(client)
        let firstLaunch = try await fresh.launch()
        #expect(firstLaunch.screen == .login && firstLaunch.status == nil)

        let (writer, _, _) = try await App.signUpAndLogIn(client)
        let writerId = try #require(await writer.userId)

        // The tab bar's community tab loads its first page right after login.
        let first = try await writer.call(App.GetPostResponse.self) {
            try App.Router.getPosts(nextCursor: "", key: key)
        }
        #expect(first.data.count <= App.pageSize)

        // PostViewModel with two photos: upload (`files`, "test", image/jpeg), then the post with the paths.
        let uploaded = try await writer.call(App.ImageUploadResponse.self) {
            App.Router.postFiles([TestImages.png, TestImages.png], key: key)
        }
        #expect(uploaded.files.count == 2)
        let tag = TestEnvironment.unique("주유")
        let photoPost = try await writer.call(App.PostResponse.self) {
            try App.Router.postPost(
                App.PostForm(title: "오늘의 유가", content: "휘발유 1,689원 #\(tag)", files: uploaded.files), key: key)
        }
        #expect(photoPost.productId == App.productId)
        #expect(photoPost.title == "오늘의 유가" && photoPost.content == "휘발유 1,689원 #\(tag)")
        #expect(photoPost.files == uploaded.files)
        #expect(photoPost.creator.userId == writerId)
        #expect(photoPost.hashTags == [tag])
        #expect(photoPost.likes.isEmpty && photoPost.likes2.isEmpty && photoPost.buyers.isEmpty)
        #expect(photoPost.comments.isEmpty)

        // The screen has no checks: a photo with the title field left empty is sent as "title": "".
        let untitledPhotos = try await writer.call(App.ImageUploadResponse.self) {
            App.Router.postFiles([TestImages.png], key: key)
        }
        let untitled = try await writer.call(App.PostResponse.self) {
            try App.Router.postPost(
                App.PostForm(title: "", content: "제목 없이 사진만", files: untitledPhotos.files), key: key)
        }
        #expect(untitled.title == "" && untitled.files == untitledPhotos.files)

        // Text-only posts (no photos: the upload is skipped and `files: []` is sent).
        var textPosts: [App.PostResponse] = []
        for index in 1...7 {
            let post = try await writer.call(App.PostResponse.self) {
                try App.Router.postPost(
                    App.PostForm(title: "주유 일기 \(index)", content: "\(index)번째 기록", files: []), key: key)
            }
            #expect(post.files.isEmpty)
            textPosts.append(post)
        }

        // Pull to refresh: cursor "" again, paged to "0"; nothing twice, newest first, all nine of mine.
        let list = try await App.community(writer)
        let ids = list.posts.map(\.postId)
        #expect(Set(ids).count == ids.count, "a post was shown twice while paging")
        #expect(list.cursors.count >= 2, "nine posts take more than one page of 8")
        let mine = [photoPost, untitled] + textPosts
        let positions = mine.reversed().compactMap { ids.firstIndex(of: $0.postId) }
        #expect(positions.count == mine.count, "a post is missing from the community list")
        #expect(positions == positions.sorted(), "the list is not newest first")
        let dates = list.posts.map(\.createdAt)
        #expect(dates == dates.sorted(by: >), "the list is not newest first")

        // The thumbnails of the first page (`files.first`, else ""), loaded one after another via AuthInterceptor.
        for post in list.posts.prefix(App.pageSize) {
            let thumbnail = try await writer.withAuthInterceptor(try App.Router.image(post.files.first ?? "", key: key))
            if post.files.isEmpty {
                // `GET /v1/` fails, so the row shows the bundled "thumbnail" placeholder.
                #expect(!(200..<300).contains(thumbnail.status), "\(thumbnail.status) \(thumbnail.text)")
            } else {
                #expect(thumbnail.status == 200, "\(thumbnail.status) \(thumbnail.text)")
                #expect(thumbnail.body == TestImages.png)
            }
        }

        // DetailPostViewModel: the post, then every photo.
        let reader = try await App.signUpAndLogIn(client).device
        let detail = try await reader.call(App.PostResponse.self) {
            try App.Router.getPost(id: photoPost.postId, key: key)
        }
        #expect(detail.postId == photoPost.postId && detail.title == "오늘의 유가")
        #expect(detail.files == uploaded.files && detail.creator.userId == writerId)
        for path in detail.files {
            let photo = try await reader.withAuthInterceptor(try App.Router.image(path, key: key))
            #expect(photo.status == 200, "\(path): \(photo.status)")
            #expect(photo.body == TestImages.png)
        }
    }

    /// DetailPostViewModel: the fire button (like) toggles from `likes.contains(userId)` and then from the answer;
    /// a comment is sent on return and the detail reloaded (comments newest first).
    @Test func fireAndCommentOnTheDetailScreen() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let writer = try await App.signUpAndLogIn(client).device
        let reader = try await App.signUpAndLogIn(client).device
        let readerId = try #require(await reader.userId)
        let post = try await writer.call(App.PostResponse.self) {
            try App.Router.postPost(App.PostForm(title: "셀프 주유 팁", content: "노즐은 끝까지", files: []), key: key)
        }
        let postId = post.postId

        let opened = try await reader.call(App.PostResponse.self) { try App.Router.getPost(id: postId, key: key) }
        var liked = opened.likes.contains(readerId)
        #expect(!liked)

        // Fire: `!likedStatus` is sent; the answer becomes the button's state (the detail is not reloaded).
        let fired = try await reader.call(App.LikeStatus.self) {
            [liked] in try App.Router.likePost(id: postId, !liked, key: key)
        }
        #expect(fired.likeStatus == true)
        liked = fired.likeStatus
        let reopened = try await reader.call(App.PostResponse.self) { try App.Router.getPost(id: postId, key: key) }
        #expect(reopened.likes == [readerId])
        #expect(reopened.likes.contains(readerId) == liked)

        // Fire again: off.
        let unfired = try await reader.call(App.LikeStatus.self) {
            [liked] in try App.Router.likePost(id: postId, !liked, key: key)
        }
        #expect(unfired.likeStatus == false)

        // The comment field's return key: post the comment, then `loadDetailPostData` reloads the post.
        let comment = try await reader.call(App.CommentResponse.self) {
            try App.Router.postComment(id: postId, comment: "오 꿀팁 감사합니다 ⛽️", key: key)
        }
        #expect(comment.content == "오 꿀팁 감사합니다 ⛽️" && comment.creator.userId == readerId)
        let withComment = try await reader.call(App.PostResponse.self) { try App.Router.getPost(id: postId, key: key) }
        #expect(withComment.comments.map(\.commentId) == [comment.commentId])
        #expect(withComment.likes.isEmpty)

        let answer = try await writer.call(App.CommentResponse.self) {
            try App.Router.postComment(id: postId, comment: "\"천천히\" 넣으세요 / 정량 확인!", key: key)
        }
        let twoComments = try await writer.call(App.PostResponse.self) { try App.Router.getPost(id: postId, key: key) }
        #expect(twoComments.comments.map(\.commentId) == [answer.commentId, comment.commentId])
        #expect(twoComments.comments.first?.content == "\"천천히\" 넣으세요 / 정량 확인!")
    }

    /// DonationViewController → PaymentViewController: a 1 200-won coffee through iamport, validated against the
    /// app's hard-coded donation post; closing the sheet with the back button validates a fixed imp_uid.
    @Test func donateACoffee() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let member = try await App.signUpAndLogIn(client).device

        // The iamport SDK's part: merchant_uid "ios_<SeSAC_Key>_<seconds>" (a unique tail added), amount "1200".
        let merchantUid = "ios_\(key)_\(Int(Date().timeIntervalSince1970))_\(TestEnvironment.unique("lz"))"
        let paid = try await sandbox.send(
            "POST", "/__sandbox/payments",
            json: """
                {"merchant_uid":"\(merchantUid)","amount":1200,"name":"LZLSLP Test","buyer_name":"Alpaka99"}
                """)
        #expect(paid.status == 200, "\(paid.text)")
        let impUid = try #require(try paid.json.string("imp_uid"))

        let validated = try await member.withPostInterceptor {
            try App.Router.paymentValidation(impUid: impUid, key: key)
        }
        withKnownIssue(
            "LZLSLP defect: Utils/Routers/URLRouter.swift sends the donation for post_id 66d4e45e5a9c85013f8f0314, a post of the server the app was built for, so validation is 410 anywhere else"
        ) {
            #expect(validated.status == 200, "\(validated.status) \(validated.text)")
            _ = try client.decode(App.PaymentValidationResponse.self, from: validated)
        }
        #expect(validated.status == 410, "\(validated.status) \(validated.text)")
        _ = try client.decode(TwinMessage.self, from: validated)

        // Another member opens the sheet and taps the back chevron: a fake "success" with a fixed imp_uid.
        let other = try await App.signUpAndLogIn(client).device
        let closed = try await other.withPostInterceptor {
            try App.Router.paymentValidation(impUid: App.backButtonImpUid, key: key)
        }
        withKnownIssue(
            "LZLSLP defect: Presenters/Payment/PaymentViewController.swift's back button reports a payment with the fixed imp_uid imp_892335070167, and the donation post is hard-coded (Utils/Routers/URLRouter.swift)"
        ) {
            #expect(closed.status == 200, "\(closed.status) \(closed.text)")
            _ = try client.decode(App.PaymentValidationResponse.self, from: closed)
        }
        #expect((400..<500).contains(closed.status), "\(closed.status) \(closed.text)")
    }

    /// LaunchViewModel and the interceptors over time: a relaunch while the token is valid (409 → login); an
    /// expired token at launch (refresh 200 → tab bar, the new token not saved → the list refreshes again and
    /// retries); an expired refresh token (the list's call fails quietly; the next launch shows login).
    @Test func launchChecksAndTokenRefresh() async throws {
        let client = try TwinClient()
        let key = client.apiKey
        let (device, email, password) = try await App.signUpAndLogIn(client)

        // Relaunch a minute later: `GET /v1/auth/refresh` with Authorization + Refresh → 409 (still valid).
        let relaunch = try await device.launch()
        #expect(relaunch.status == 409)
        withKnownIssue(
            "LZLSLP defect: Presenters/Launch/LaunchViewModel.swift treats every non-2xx refresh as logged out, so a relaunch while the access token is valid (409) shows the login screen"
        ) {
            #expect(relaunch.screen == .community)
        }
        try await device.login(email: email, password: password)

        // Later the access token has expired: the launch check's refresh succeeds → tab bar, token not saved.
        try await device.letAccessTokenExpire()
        let expiredLaunch = try await device.launch()
        #expect(expiredLaunch.screen == .community && expiredLaunch.status == 200)
        // The community list: 419 → PostInterceptor → refresh (via AuthInterceptor) → save → retry.
        let page = try await device.call(App.GetPostResponse.self) { try App.Router.getPosts(nextCursor: "", key: key) }
        #expect(page.data.count <= App.pageSize)
        let statuses = await device.refreshStatuses
        #expect(statuses.suffix(3) == [409, 200, 200], "launch 409, launch 200, then the list's own refresh")

        // An upload with an expired token: one refresh, one retry, one set of paths.
        try await device.letAccessTokenExpire()
        let uploaded = try await device.call(App.ImageUploadResponse.self) {
            App.Router.postFiles([TestImages.png], key: key)
        }
        #expect(uploaded.files.count == 1)
        let afterUpload = await device.refreshStatuses
        #expect(afterUpload.last == 200 && afterUpload.count == statuses.count + 1)

        // The refresh token has expired too: the list's 419 → refresh 418 → the call just fails (no screen change).
        try await device.letRefreshTokenExpire()
        try await device.letAccessTokenExpire()
        let stale = try await device.withPostInterceptor { try App.Router.getPosts(nextCursor: "", key: key) }
        #expect(stale.status == 419)
        let afterExpiry = await device.refreshStatuses
        #expect(afterExpiry.last == 418)

        // Next launch: the refresh is 418 → login screen; logging in again brings the list back.
        let lastLaunch = try await device.launch()
        #expect(lastLaunch.screen == .login && lastLaunch.status == 418)
        try await device.login(email: email, password: password)
        let back = try await device.call(App.GetPostResponse.self) { try App.Router.getPosts(nextCursor: "", key: key) }
        #expect(back.data.count <= App.pageSize)
    }
}
