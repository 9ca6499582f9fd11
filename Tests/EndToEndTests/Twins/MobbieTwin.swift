import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Mobbie (github.com/andwecrawl/Mobbie, Nov 2023 – Jan 2024, G0): an anonymous movie-talk feed. A member signs up
/// with an email, a password and a phone number — the nick sent to the server is a fresh `UUID()` string the user
/// never sees — and posts under a random "nickname of the day" (`다정한 수달`), kept on the device and written into
/// `content1` of every post. The feed is `product_id=MobbieFeed`, 20 at a time; a post has up to four photos sent
/// inline (`file` parts) with the first photo's aspect ratio in `content3`; commenting also records the commenter's
/// nickname of the day by editing the post (`content2`, the list joined by `", "`); a like is a toggle; the settings
/// screen lists my posts (feed and media tabs) and withdraws.
///
/// The app's network layer: Moya (`MoyaNetwork: TargetType`, `baseURL` + path without `/v1`) over an Alamofire
/// `Session(interceptor: AuthInterceptor.shared)`, every call through `MoyaAPIManager.fetchInSignProgress`:
/// `.requestJSONEncodable` with a plain `JSONEncoder()`, `.requestParameters(…, URLEncoding.queryString)` (keys
/// sorted), `.uploadMultipart` for posts; headers are read from `UserDefaultsHelper` when the request is built;
/// success is exactly 200, decoded with a plain `JSONDecoder()`. `validationType` is `.none` for join, login, the
/// email check and withdraw (no retry on 419 there) and `.successCodes` for the rest. `AuthInterceptor` has only
/// `retry` (no `adapt`): on 419 it calls `GET /refresh` and answers `.retry` — Alamofire then resends the *original*
/// `URLRequest`, still carrying the expired token (see `Session.fetch`).
enum MobbieTwin {
    static let productID = "MobbieFeed"

    // MARK: Encodable (Mobbie: Network/Model/Encodable/…)

    // Mobbie: Network/Model/Encodable/LoginModel.swift — `nick` is a new UUID string for every SignUpData (36
    // characters, upper-case hex and hyphens); the synthesized `encode(to:)` sends it with the other three.
    struct SignUpData: Encodable, Sendable {
        let email: String
        let password: String
        let nick = UUID().uuidString
        let phoneNum: String
    }

    // Mobbie: Network/Model/Encodable/LoginModel.swift
    struct LoginData: Encodable, Sendable { var email: String; var password: String }
    // Mobbie: Network/Model/Encodable/LoginModel.swift
    struct ValidationData: Encodable, Sendable { let email: String }

    // Mobbie: Network/Model/Encodable/PostModel.swift — its Encodable conformance is never used on the wire: the
    // router turns it into multipart parts. `nickname` is `UserDefaultsHelper.shared.nickname` when the model is made.
    struct PostModel: Sendable {
        let content: String
        var file: [Data]? = nil
        let productID = MobbieTwin.productID
        let nickname: String
        var commentUsers = ""
        var ratio = ""
    }

    // Mobbie: Network/Model/Encodable/PostModel.swift
    struct CommentModel: Encodable, Sendable { let content: String }

    // MARK: Decodable (Mobbie: Network/Model/…)

    // Mobbie: Network/Model/LoginResponse.swift
    struct JoinResponse: Decodable, Sendable {
        let id: String
        let email: String
        let nickname: String
        enum CodingKeys: String, CodingKey { case id = "_id", email, nickname = "nick" }
    }

    // Mobbie: Network/Model/LoginResponse.swift
    struct LoginResponse: Decodable, Sendable { let _id: String; let token: String; let refreshToken: String }
    // Mobbie: Network/Model/LoginResponse.swift (the app's spelling)
    struct withdrawResponse: Decodable, Sendable { let _id: String; let email: String; let nick: String }
    // Mobbie: Network/Model/LoginResponse.swift
    struct TokenResponse: Decodable, Sendable { let token: String }
    // Mobbie: Network/Model/LoginResponse.swift
    struct ValidationResponse: Decodable, Sendable { let message: String }

    // Mobbie: Network/Model/PostResponse.swift
    struct PostResponse: Decodable, Sendable {
        let data: [Post]
        let nextCursor: String
        enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
    }

    // Mobbie: Network/Model/PostResponse.swift — `productID` is looked up under the key "productID", which no
    // server sends, so it is always nil (harmless: the app never reads it). `commentUser` became optional on
    // 2023-12-17 (commit c8dd518); `ratio` (content3) only exists on posts with photos.
    struct Post: Decodable, Sendable {
        var _id: String
        var creator: User
        var time: String
        var content: String?
        var likes: [String]
        var image: [String]
        var hashTags: [String]
        var comments: [Comment]
        var productID: String?
        var nickname: String?
        var commentUser: String?
        var ratio: String?

        var commentNicknames: [String] { commentUser?.components(separatedBy: ", ") ?? [] }

        enum CodingKeys: String, CodingKey {
            case _id, creator, time, content, likes, image, hashTags, comments, productID
            case nickname = "content1", commentUser = "content2", ratio = "content3"
        }
    }

    // Mobbie: Network/Model/PostResponse.swift
    struct DeletePostResponse: Decodable, Sendable { var _id: String }

    // Mobbie: Network/Model/PostResponse.swift (the app's spelling)
    struct likedResponse: Decodable, Sendable {
        var isSuccess: Bool
        enum CodingKeys: String, CodingKey { case isSuccess = "like_status" }
    }

    // Mobbie: Network/Model/CommentResponse.swift
    struct Comment: Decodable, Sendable { var _id: String; var creator: User; var time: String; var content: String }
    // Mobbie: Network/Model/CommentResponse.swift (only `postID` is read)
    struct DeleteCommentResponse: Decodable, Sendable { var postID: String }
    // Mobbie: Network/Model/UserResponse.swift
    struct User: Decodable, Sendable { var _id: String; var nick: String }

    // MARK: Router (Mobbie: Network/Moya/MoyaLSLPNetwork.swift; the older Network/LSLPNetwork.swift is unused)

    enum ValidationType: Sendable { case none, successCodes }

    /// `MoyaNetwork` with its `path`, `method`, `task` and `headers`. Headers are read from `UserDefaultsHelper`
    /// when the endpoint is made, so a request carries the tokens of that moment for its whole life (retries too).
    enum MoyaNetwork: Sendable {
        case signUp(model: SignUpData)
        case login(model: LoginData)
        case emailValidation(model: ValidationData)
        case withdraw
        case refreshAccessToken
        case writePost(model: PostModel)
        case fetchPost(nextCursor: String)
        case fetchSpecificPost(postID: String)
        case modifiyPost(postID: String, commentUsers: String)
        case deletePost(postID: String)
        case writeComment(postID: String, content: String)
        case deleteComment(postID: String, commentID: String)
        case liked(postID: String)
        case fetchPostUserLiked
        case fetchMyPosts(userID: String, cursor: String)

        static let sesacKey = "SesacKey"

        var validationType: ValidationType {
            switch self {
            case .signUp, .login, .emailValidation, .withdraw: .none
            default: .successCodes
            }
        }

        /// The `URLRequest` Moya and Alamofire make: `baseURL` + path (no `/v1`); `multipart/form-data` declared in
        /// `headers` is replaced by Alamofire with the boundary-carrying type; `.requestJSONEncodable` adds
        /// `application/json` only where `headers` did not set it (writeComment sets it itself).
        func request(accessToken: String, refreshToken: String, key: String) throws -> TwinRequest {
            let auth = [("Authorization", accessToken), (Self.sesacKey, key)]
            switch self {
            case .signUp(let model):
                return try .json("POST", "/join", model, headers: [(Self.sesacKey, key)])
            case .login(let model):
                return try .json("POST", "/login", model, headers: [(Self.sesacKey, key)])
            case .emailValidation(let model):
                return try .json("POST", "/validation/email", model, headers: [(Self.sesacKey, key)])
            case .withdraw:
                return TwinRequest("GET", "/withdraw", headers: auth)
            case .refreshAccessToken:
                return TwinRequest("GET", "/refresh", headers: auth + [("Refresh", refreshToken)])
            case .writePost(let model):
                // product_id, content, content1 (no declared type), then one `file` per photo named "<Data
                // description>.jpg" — "70 bytes.jpg" — declared `image/jpg`, then content3 only with photos.
                var form = TwinMultipart()
                form.text("product_id", model.productID)
                form.text("content", model.content)
                form.text("content1", model.nickname)
                if let images = model.file {
                    for image in images {
                        form.file("file", filename: "\(image).jpg", mimeType: "image/jpg", bytes: Array(image))
                    }
                    form.text("content3", model.ratio)
                }
                return .multipart("POST", "/post", form, headers: auth)
            case .fetchPost(let cursor):
                return TwinRequest(
                    "GET", "/post",
                    query: TwinQuery.alamofire([
                        ("next", cursor), ("limit", "20"), ("product_id", MobbieTwin.productID),
                    ]),
                    headers: auth)
            case .fetchMyPosts(let userID, let cursor):
                return TwinRequest(
                    "GET", "/post/user/\(userID)",
                    query: TwinQuery.alamofire([
                        ("next", cursor), ("limit", "20"), ("product_id", MobbieTwin.productID),
                    ]), headers: auth)
            case .fetchSpecificPost(let postID):
                return TwinRequest("GET", "/post/\(postID)", headers: auth)
            case .modifiyPost(let postID, let commentUsers):
                var form = TwinMultipart()
                form.text("content2", commentUsers)
                return .multipart("PUT", "/post/\(postID)", form, headers: auth)
            case .deletePost(let postID):
                return TwinRequest("DELETE", "/post/\(postID)", headers: auth)
            case .writeComment(let postID, let content):
                return try .json("POST", "/post/\(postID)/comment", CommentModel(content: content), headers: auth)
            case .deleteComment(let postID, let commentID):
                return TwinRequest("DELETE", "/post/\(postID)/comment/\(commentID)", headers: auth)
            case .liked(let postID):
                return TwinRequest("POST", "/post/like/\(postID)", headers: auth)
            case .fetchPostUserLiked:
                return TwinRequest("GET", "/post/like/me", headers: auth)
            }
        }
    }

    /// Mobbie: Network/KingfisherHelper.swift — `baseURL + path` with `Authorization` and `SesacKey`.
    static func fetchImage(_ path: String, token: String, key: String) -> TwinRequest {
        TwinRequest("GET", "/\(path)", headers: [("Authorization", token), ("SesacKey", key)])
    }

    /// Mobbie: Data/TimeHandler.swift `String.parsingToDate` — ISO 8601 with fractional seconds, else "날짜를 불러오지
    /// 못했습니다." on screen.
    static func parsingToDate(_ time: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: time)
    }

    /// Mobbie: Resource/NicknameData.swift `Nickname.makeNewNickname()` — an adjective, a space, a fruit, animal or
    /// instrument (a few of the app's words here).
    static func makeNewNickname() -> String {
        let adjectives = ["다정한", "진취적인", "맑은", "현란한", "몽환적인", "청량한", "유쾌한", "눈부신"]
        let nouns = ["망고스틴", "석류", "코알라", "수달", "해달", "펭귄", "탬버린", "오카리나"]
        return adjectives.randomElement()! + " " + nouns.randomElement()!
    }

    /// AddPostViewModel: the first photo's width / height as `CGFloat` prints it ("1.0" for a square photo), read
    /// here from the PNG header of the test image.
    static func ratio(ofPNG png: [UInt8]) -> String {
        func be32(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
        return "\(Double(be32(16)) / Double(be32(20)))"
    }

    // MARK: Session (Data/UserDefaultHelper.swift + Network/Moya/AuthInterceptor.swift + MoyaAPIManager.swift)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        let phoneNum: String
        /// The nick the join answered (the UUID the app made; the app itself never shows or stores it).
        private(set) var serverNick = ""
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var userID = ""
        /// `UserDefaultsHelper.nickname`: the anonymous nickname of the day.
        private(set) var nickname = ""
        /// Every `GET /refresh` status the interceptor saw, in order.
        private(set) var refreshStatuses: [Int] = []
        /// `transitionTo(LoginViewController())` from the interceptor (a 418).
        private(set) var loginScreenShown = 0

        /// What a screen got from `fetchInSignProgress`: the last answer, and whether the call ever completed (an
        /// interceptor that never calls its completion leaves the request, and the screen, waiting for good).
        struct Delivery: Sendable {
            let reply: GatewayClient.Reply
            let completed: Bool
            let stalledBecause: String?
        }

        init(client: TwinClient, email: String, password: String, phoneNum: String) {
            self.client = client
            self.email = email
            self.password = password
            self.phoneNum = phoneNum
        }

        /// Onboarding: JoinViewController (email → "이메일 확인" → password → phone → join) then WelcomeViewController
        /// ("시작하기": login, tokens and user id stored, a nickname of the day made). Returns the session and the join.
        static func signUp(_ client: TwinClient, password: String = "mobbi1") async throws -> (Session, JoinResponse) {
            let email = "\(TestEnvironment.unique("mobbie"))@example.com"
            let session = Session(client: client, email: email, password: password, phoneNum: "010-1234-5678")
            let checked = try await session.fetch(.emailValidation(model: ValidationData(email: email)))
            #expect(checked.reply.status == 200, "email check: \(checked.reply.status) \(checked.reply.text)")
            _ = try client.decode(ValidationResponse.self, from: checked.reply)
            let model = SignUpData(email: email, password: password, phoneNum: session.phoneNum)
            let joined = try await session.fetch(.signUp(model: model))
            #expect(
                joined.reply.status == 200, "join with nick \(model.nick): \(joined.reply.status) \(joined.reply.text)")
            let join = try client.decode(JoinResponse.self, from: joined.reply)
            #expect(join.nickname == model.nick && join.email == email)
            await session.setServerNick(join.nickname)
            let login = try await session.logIn()
            #expect(login._id == join.id)
            await session.refreshNickname()
            return (session, join)
        }

        private func setServerNick(_ nick: String) { serverNick = nick }

        /// WelcomeViewModel / LoginViewModel: `POST /login`, then token, refresh token and user id stored.
        @discardableResult
        func logIn() async throws -> LoginResponse {
            let reply = try await fetch(.login(model: LoginData(email: email, password: password))).reply
            #expect(reply.status == 200, "login: \(reply.status) \(reply.text)")
            let login = try client.decode(LoginResponse.self, from: reply)
            accessToken = login.token
            refreshToken = login.refreshToken
            userID = login._id
            return login
        }

        /// WelcomeViewController / NicknameView / the noon timer: a new nickname of the day.
        func refreshNickname() { nickname = MobbieTwin.makeNewNickname() }

        /// `provider.request(target)` through `AuthInterceptor`, as `fetchInSignProgress` sees it.
        ///
        /// The request is built once with the tokens of this moment. For `.successCodes` targets a non-2xx status
        /// goes to `AuthInterceptor.retry`: anything but 418/419 fails at once; 418 shows the login screen and never
        /// calls completion; 419 calls `GET /refresh` (itself a `.successCodes` target through the same
        /// interceptor), stores `token` and answers `.retry` — and Alamofire resends the same `URLRequest`, expired
        /// token included, because the interceptor has no `adapt`. A refresh that fails is emitted as `onError`,
        /// which the interceptor's subscriber does not handle: completion is never called.
        func fetch(_ target: MoyaNetwork) async throws -> Delivery {
            let key = client.apiKey
            let request = try target.request(accessToken: accessToken, refreshToken: refreshToken, key: key)
            var reply = try await client.send(request)
            guard target.validationType == .successCodes else {
                return Delivery(reply: reply, completed: true, stalledBecause: nil)
            }
            var rounds = 0
            while !(200..<300).contains(reply.status) {
                switch reply.status {
                case 419:
                    break
                case 418:
                    loginScreenShown += 1
                    return Delivery(
                        reply: reply, completed: false, stalledBecause: "418: login screen, completion never called")
                default:
                    // .doNotRetryWithError → failure
                    return Delivery(reply: reply, completed: true, stalledBecause: nil)
                }
                guard rounds < 5 else {
                    Issue.record("Alamofire would keep retrying: still 419 after \(rounds) refreshes")
                    return Delivery(reply: reply, completed: false, stalledBecause: "endless 419")
                }
                rounds += 1
                let renewed = try await client.send(
                    try MoyaNetwork.refreshAccessToken.request(
                        accessToken: accessToken, refreshToken: refreshToken, key: key))
                refreshStatuses.append(renewed.status)
                switch renewed.status {
                case 200:
                    guard let token = try? client.decode(TokenResponse.self, from: renewed) else {
                        return Delivery(
                            reply: reply, completed: false,
                            stalledBecause: "refresh answer not decodable: \(renewed.text)")
                    }
                    accessToken = token.token
                    reply = try await client.send(request)  // the same URLRequest: the old token
                case 418:
                    // The refresh request's own retry: 418 → login screen, no completion for either request.
                    loginScreenShown += 1
                    return Delivery(reply: reply, completed: false, stalledBecause: "refresh 418: login screen")
                default:
                    return Delivery(
                        reply: reply, completed: false,
                        stalledBecause:
                            "refresh answered \(renewed.status) (\(renewed.text)): onError is not handled, completion never called"
                    )
                }
            }
            return Delivery(reply: reply, completed: true, stalledBecause: nil)
        }

        /// A screen's call: completed, exactly 200 (`fetchInSignProgress`), decoded with the app's type.
        func call<Model: Decodable>(
            _ target: MoyaNetwork, as type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Model {
            let delivery = try await fetch(target)
            #expect(
                delivery.completed, "the request never completed: \(delivery.stalledBecause ?? "")",
                sourceLocation: sourceLocation)
            #expect(
                delivery.reply.status == 200, "\(target): \(delivery.reply.status) \(delivery.reply.text)",
                sourceLocation: sourceLocation)
            return try client.decode(type, from: delivery.reply)
        }

        /// KingfisherHelper.fetchImage (no interceptor).
        func image(_ path: String) async throws -> GatewayClient.Reply {
            try await client.send(MobbieTwin.fetchImage(path, token: accessToken, key: client.apiKey))
        }

        /// AddPostViewModel: text (and photos) → `.writePost`, decoded as `Post`.
        func write(_ content: String, photos: [[UInt8]] = []) async throws -> Post {
            let model: PostModel
            if photos.isEmpty {
                model = PostModel(content: content, nickname: nickname)
            } else {
                model = PostModel(
                    content: content, file: photos.map { Data($0) }, nickname: nickname,
                    ratio: MobbieTwin.ratio(ofPNG: photos[0]))
            }
            return try await call(.writePost(model: model), as: Post.self)
        }

        // MARK: Time passing (test-side only, as in AppSession)

        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userID)
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// FeedViewController + FeedViewModel: `viewWillAppear` asks with `next=""`; scrolling near the end asks with the
    /// last `next_cursor` while it is not "0"; pages are appended.
    static func openFeed(_ session: Session) async throws -> (posts: [Post], cursors: [String], pageSizes: [Int]) {
        var posts: [Post] = []
        var cursors: [String] = []
        var sizes: [Int] = []
        var cursor = ""
        repeat {
            let page = try await session.call(.fetchPost(nextCursor: cursor), as: PostResponse.self)
            posts += page.data
            sizes.append(page.data.count)
            cursors.append(page.nextCursor)
            cursor = page.nextCursor
        } while cursor != "0" && cursors.count < 2_000
        #expect(cursor == "0", "the feed never ended")
        return (posts, cursors, sizes)
    }
}

@Suite("Mobbie twin")
struct MobbieTwinTests {
    typealias App = MobbieTwin

    /// Onboarding with the app's shortest password (6 characters, a letter and a digit): email check, join with the
    /// app-made UUID nick (36 characters), the same email checked again (409 → "이미 가입된 유저입니다."), "시작하기"
    /// (login), a wrong password on the login screen (401), and the feed as the first screen.
    @Test func onboardingWithUUIDNickThenFeed() async throws {
        let client = try TwinClient()
        let (member, join) = try await App.Session.signUp(client, password: "mobbi1")
        #expect(
            join.nickname.count == 36 && UUID(uuidString: join.nickname) != nil, "the app's nick is UUID().uuidString")
        let userID = await member.userID
        #expect(userID == join.id)

        let again = try await member.fetch(.emailValidation(model: .init(email: member.email)))
        #expect(again.reply.status == 409, "a taken email: \(again.reply.status) \(again.reply.text)")
        let twice = try await member.fetch(
            .signUp(model: .init(email: member.email, password: "mobbi1", phoneNum: "010-1234-5678")))
        #expect(twice.reply.status == 409, "join with a taken email: \(twice.reply.status)")

        let wrong = try await member.fetch(.login(model: .init(email: member.email, password: "wrong1")))
        #expect(wrong.reply.status == 401, "LoginViewModel shows '계정을 확인해 주세요!' for \(wrong.reply.status)")

        let first = try await member.call(.fetchPost(nextCursor: ""), as: App.PostResponse.self)
        #expect(first.data.count <= 20)
        #expect(first.data.allSatisfy { App.parsingToDate($0.time) != nil }, "a post time the app cannot show")
    }

    /// AddPostViewController with two photos, then text only; the photos load (Kingfisher); the feed is paged from
    /// `next=""` until `next_cursor == "0"`, 20 at a time, every post once, mine newest first.
    @Test func writePostsWithPhotosThenPageTheFeed() async throws {
        let client = try TwinClient()
        let (writer, _) = try await App.Session.signUp(client)
        let writerID = await writer.userID, nickname = await writer.nickname

        let withPhotos = try await writer.write("오늘 본 영화 최고였다 #mobbie", photos: [TestImages.png, TestImages.png])
        #expect(withPhotos.creator._id == writerID)
        #expect(withPhotos.nickname == nickname, "content1 carries the nickname of the day")
        #expect(withPhotos.ratio == "1.0", "content3 carries the first photo's ratio")
        #expect(withPhotos.commentUser == nil && withPhotos.commentNicknames.isEmpty)
        #expect(withPhotos.image.count == 2 && withPhotos.image.allSatisfy { $0.hasPrefix("uploads/") })
        #expect(withPhotos.hashTags == ["mobbie"])
        #expect(App.parsingToDate(withPhotos.time) != nil, "time \(withPhotos.time)")
        for path in withPhotos.image {
            let photo = try await writer.image(path)
            #expect(photo.status == 200 && photo.body == TestImages.png, "\(path): \(photo.status)")
        }

        let textOnly = try await writer.write("사진 없이 한 줄")
        #expect(textOnly.image.isEmpty && textOnly.ratio == nil, "content3 is sent only with photos")
        #expect(textOnly.nickname == nickname)

        // The shared feed must have a second page for the paging to be exercised: top it up once if it has not
        // (to 26: the other tests of this suite remove up to three posts of MobbieFeed while this one pages).
        let firstPage = try await writer.call(.fetchPost(nextCursor: ""), as: App.PostResponse.self)
        if firstPage.nextCursor == "0" {
            let (filler, _) = try await App.Session.signUp(client)
            for index in 0..<(26 - firstPage.data.count) { _ = try await filler.write("채우기 \(index)") }
        }

        let feed = try await App.openFeed(writer)
        let ids = feed.posts.map(\._id)
        #expect(Set(ids).count == ids.count, "a post came twice while paging")
        #expect(feed.pageSizes.count >= 2 && feed.pageSizes.allSatisfy { $0 <= 20 }, "pages: \(feed.pageSizes)")
        #expect(feed.cursors.last == "0")
        let newer = try #require(ids.firstIndex(of: textOnly._id), "my text post is not in the feed")
        let older = try #require(ids.firstIndex(of: withPhotos._id), "my photo post is not in the feed")
        #expect(newer < older, "newest first")
        #expect(feed.posts[older].image == withPhotos.image && feed.posts[older].ratio == "1.0")
    }

    /// DetailViewController: someone else comments (and the app tries to record their nickname by editing the post:
    /// only the author may), the author comments on their own post (content2 recorded), the like is toggled twice,
    /// the commenter deletes their comment (the post is re-read by the `postID` of the answer), the author deletes the
    /// post.
    @Test func commentsLikesAndDeletion() async throws {
        let client = try TwinClient()
        let (author, _) = try await App.Session.signUp(client)
        let (reader, _) = try await App.Session.signUp(client)
        let readerID = await reader.userID, authorNickname = await author.nickname,
            readerNickname = await reader.nickname
        let post = try await author.write("결말 해석 같이 해요", photos: [TestImages.png])

        // The reader opens it (pull to refresh: `.fetchSpecificPost`), comments, then edits content2.
        let opened = try await reader.call(.fetchSpecificPost(postID: post._id), as: App.Post.self)
        #expect(opened._id == post._id && opened.commentNicknames.isEmpty)
        let comment = try await reader.call(
            .writeComment(postID: post._id, content: "저는 열린 결말로 봤어요"), as: App.Comment.self)
        #expect(comment.creator._id == readerID && App.parsingToDate(comment.time) != nil)
        let readerEdit = try await reader.fetch(
            .modifiyPost(
                postID: post._id, commentUsers: (opened.commentNicknames + [readerNickname]).joined(separator: ", ")))
        withKnownIssue(
            "Mobbie defect: Scene/Detail/DetailViewController.swift records a commenter's nickname by editing the post (`modifiyPost`, content2), but only the author may edit a post (LSLP 445), so every comment on someone else's post is shown as \"앗! 닉네임 오류예요!\""
        ) {
            #expect(readerEdit.reply.status == 200)
        }
        #expect(
            readerEdit.reply.status == 445, "someone else's post: \(readerEdit.reply.status) \(readerEdit.reply.text)")

        // The author comments on their own post: the edit goes through and keeps everything else.
        let authorView = try await author.call(.fetchSpecificPost(postID: post._id), as: App.Post.self)
        _ = try await author.call(.writeComment(postID: post._id, content: "좋은 의견 감사해요"), as: App.Comment.self)
        let recorded = try await author.call(
            .modifiyPost(
                postID: post._id, commentUsers: (authorView.commentNicknames + [authorNickname]).joined(separator: ", ")
            ),
            as: App.Post.self)
        #expect(recorded.commentUser == authorNickname && recorded.commentNicknames == [authorNickname])
        #expect(recorded.nickname == authorNickname, "content1 is kept by an edit that sends only content2")
        #expect(recorded.ratio == "1.0" && recorded.image == post.image, "content3 and the photos are kept")
        #expect(recorded.comments.count == 2)
        #expect(recorded.comments.last?._id == comment._id, "newest first: the app reverses them to oldest first")

        // The like button, twice.
        let liked = try await reader.call(.liked(postID: post._id), as: App.likedResponse.self)
        #expect(liked.isSuccess)
        #expect(try await reader.call(.fetchSpecificPost(postID: post._id), as: App.Post.self).likes == [readerID])
        let unliked = try await reader.call(.liked(postID: post._id), as: App.likedResponse.self)
        #expect(!unliked.isSuccess)
        #expect(try await reader.call(.fetchSpecificPost(postID: post._id), as: App.Post.self).likes.isEmpty)

        // CommentTableViewCell "삭제하기" (shown to the comment's creator only), then the post is re-read.
        let deleted = try await reader.call(
            .deleteComment(postID: post._id, commentID: comment._id), as: App.DeleteCommentResponse.self)
        #expect(deleted.postID == post._id)
        let reread = try await reader.call(.fetchSpecificPost(postID: deleted.postID), as: App.Post.self)
        #expect(!reread.comments.contains { $0._id == comment._id } && reread.comments.count == 1)

        // FeedTableViewCell "삭제하기" (the author's own post): the answer's `_id` is matched against the row.
        let removed = try await author.call(.deletePost(postID: post._id), as: App.DeletePostResponse.self)
        #expect(removed._id == post._id)
        let gone = try await reader.fetch(.fetchSpecificPost(postID: post._id))
        #expect(gone.reply.status == 410, "a deleted post: \(gone.reply.status)")
    }

    /// Settings → "내 글 모아보기": the feed tab (`GET /post/user/{me}?limit=20&next=&product_id=MobbieFeed`), then the
    /// media tab with the cursor the feed tab left ("0"); then "회원 탈퇴" by GET: the answer, the old token refused on
    /// the next request, the login refused, the posts gone for others.
    @Test func myPostsThenWithdraw() async throws {
        let client = try TwinClient()
        let (member, join) = try await App.Session.signUp(client)
        let (other, _) = try await App.Session.signUp(client)
        let memberID = await member.userID
        let photoPost = try await member.write("포스터 공유", photos: [TestImages.png])
        let textPost = try await member.write("한 줄 평")

        let feedTab = try await member.call(.fetchMyPosts(userID: memberID, cursor: ""), as: App.PostResponse.self)
        #expect(feedTab.data.map(\._id) == [textPost._id, photoPost._id])
        #expect(feedTab.nextCursor == "0")

        // UserViewController keeps one `nextCursor` for all tabs: the media tab asks with "0".
        let mediaTab = try await member.call(
            .fetchMyPosts(userID: memberID, cursor: feedTab.nextCursor), as: App.PostResponse.self)
        #expect(mediaTab.nextCursor == "0")
        withKnownIssue(
            "Mobbie defect: Scene/Profile/UserViewController.swift reuses the feed tab's `nextCursor` (\"0\" once the list ended) for the media tab, so the media tab asks past the end and shows none of my photo posts"
        ) {
            #expect(mediaTab.data.filter { !$0.image.isEmpty }.map(\._id) == [photoPost._id])
        }

        // "회원 탈퇴" (validationType .none: the status decides).
        let oldToken = await member.accessToken
        let withdrawn = try await member.fetch(.withdraw)
        #expect(withdrawn.reply.status == 200, "\(withdrawn.reply.text)")
        let answer = try client.decode(App.withdrawResponse.self, from: withdrawn.reply)
        #expect(answer._id == memberID && answer.email == member.email && answer.nick == join.nickname)

        // The app keeps the tokens in UserDefaults and shows the login screen; the old token must be refused now.
        let refused = try await client.send(
            try App.MoyaNetwork.fetchPost(nextCursor: "").request(
                accessToken: oldToken, refreshToken: "", key: client.apiKey))
        #expect(refused.status == 401, "the withdrawn member's token: \(refused.status) \(refused.text)")
        let login = try await member.fetch(.login(model: .init(email: member.email, password: member.password)))
        #expect(login.reply.status == 401)
        let gone = try await other.fetch(.fetchSpecificPost(postID: photoPost._id))
        #expect(gone.reply.status == 410, "a withdrawn member's post: \(gone.reply.status)")
    }

    /// AuthInterceptor: ten minutes later the feed answers 419; the interceptor refreshes (200) and retries the same
    /// request with the expired token (419 again), refreshes again with the renewed, still-valid token (409), and the
    /// request never completes. The next screen builds a new request with the renewed token and works. Once the
    /// refresh token has expired too, the refresh answers 418 and the login screen is shown; logging in works.
    @Test func expiredTokensStallTheRequestThenTheNextScreenWorks() async throws {
        let client = try TwinClient()
        let (member, _) = try await App.Session.signUp(client)
        let post = try await member.write("토큰 테스트")

        try await member.letAccessTokenExpire()
        let stalled = try await member.fetch(.fetchSpecificPost(postID: post._id))
        let statuses = await member.refreshStatuses
        #expect(statuses == [200, 409], "refreshes: \(statuses)")
        #expect(stalled.reply.status == 419, "the retried request still carries the expired token")
        withKnownIssue(
            "Mobbie defect: Network/Moya/AuthInterceptor.swift has no adapt(), so Alamofire retries the original request with the expired token (419 again); the second GET /refresh carries the renewed, still-valid token and is refused (409, as LSLP did), and that failure is an unhandled onError: completion is never called and the screen waits forever"
        ) {
            #expect(stalled.completed && stalled.reply.status == 200)
        }

        // Pull to refresh: a new endpoint, headers read again from UserDefaults (the renewed token).
        let reopened = try await member.call(.fetchSpecificPost(postID: post._id), as: App.Post.self)
        #expect(reopened._id == post._id)

        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let expired = try await member.fetch(.fetchPost(nextCursor: ""))
        let shown = await member.loginScreenShown, last = await member.refreshStatuses.last
        #expect(last == 418, "an expired refresh token: \(String(describing: last))")
        #expect(!expired.completed && shown == 1)

        try await member.logIn()
        let feed = try await member.call(.fetchPost(nextCursor: ""), as: App.PostResponse.self)
        #expect(feed.data.count <= 20)
    }
}
