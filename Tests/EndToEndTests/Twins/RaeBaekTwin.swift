import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// RaeBaek's LSLProject (github.com/RaeBaek/LSLProject, Nov 2023 – Jan 2024, G0): a Threads clone. Sign-up is a
/// chain of screens (email check, password, nickname, phone — skippable —, birthday — skippable —, then join, login
/// and my profile); a thread is one text (sent as `title`) and at most one photo, under `product_id=myThreads`; the
/// home feed pages 10 at a time; a thread has likes (a toggle), comments (written, edited, deleted), an edit and a
/// delete; profiles show a user's threads, followers and following, with follow / unfollow; my profile can be
/// edited (nick, phone, birthday, photo); the heart tab lists what I liked; settings log out or withdraw.
///
/// The app's network layer: Moya (`SeSACAPI: TargetType`, `APIKey.sesacURL` + path, no `/v1`) over an Alamofire
/// `Session(interceptor: SeSACRequestInterceptor.shared)`; `validationType` `.successCodes` for every target;
/// `.requestJSONEncodable` with a plain `JSONEncoder()`, `.requestParameters(…, URLEncoding.queryString)`,
/// `.uploadMultipart`; answers through `APIManager.request` → `response.map(T.self)` (plain `JSONDecoder()`).
/// `SeSACRequestInterceptor.adapt` sets `Authorization`, **`Refresh`** and `SesacKey` on *every* request from the
/// stored values — before the first login those are the `UserDefaultsManager` placeholders "토큰 없음" and
/// "리프레시 토큰 없음" — and `retry` on 419 calls `GET /refresh`, stores `token` and retries (adapt runs again).
enum RaeBaekTwin {
    static let productID = "myThreads"

    /// A request the app would crash on (a force-unwrapped nil), refused here instead of crashing the test.
    struct AppWouldCrash: Error, CustomStringConvertible { let description: String }

    // MARK: Encodable (LSLProject/Network/APIModel.swift)

    // LSLProject: Network/APIModel.swift — optionals are left out by the synthesized `encode(to:)`.
    struct SignUp: Encodable, Sendable {
        let email: String?
        let password: String?
        let nick: String?
        let phoneNum: String?
        let birthDay: String?
    }

    // LSLProject: Network/APIModel.swift
    struct EmailValidation: Encodable, Sendable { let email: String }
    // LSLProject: Network/APIModel.swift
    struct Login: Encodable, Sendable { let email: String?; let password: String? }

    // LSLProject: Network/APIModel.swift (sent as a query, not encoded)
    struct AllPost: Encodable, Sendable {
        var next: String
        let limit: String
        let productID: String
        enum CodingKeys: String, CodingKey { case next, limit, productID = "product_id" }
    }

    // LSLProject: Network/APIModel.swift — turned into multipart parts by the router.
    struct Post: Sendable {
        let title: String?
        let file: Data?
        let productID: String?
    }

    // LSLProject: Network/APIModel.swift
    struct DownloadImage: Encodable, Sendable { let path: String }
    // LSLProject: Network/APIModel.swift
    struct UserID: Encodable, Sendable { let id: String }
    // LSLProject: Network/APIModel.swift
    struct PostID: Encodable, Sendable { let id: String }
    // LSLProject: Network/APIModel.swift
    struct CommentMessage: Encodable, Sendable { let content: String }
    // LSLProject: Network/APIModel.swift
    struct CommentEdit: Encodable, Sendable { let id: String; let commentID: String }
    // LSLProject: Network/APIModel.swift — encoded as the JSON body of the DELETE.
    struct CommentDelete: Encodable, Sendable { let id: String; let commentID: String }
    // LSLProject: Network/APIModel.swift — turned into multipart parts by the router.
    struct ProfileEdit: Sendable { let nick: String; let phoneNum: String?; let birthDay: String?; let profile: Data? }

    // MARK: Decodable (LSLProject/Network/APIModel.swift)

    struct EmailValidationResponse: Decodable, Sendable { let message: String }

    struct SignUpResponse: Decodable, Sendable {
        let id: String
        let email: String
        let nick: String
        enum CodingKeys: String, CodingKey { case email, nick, id = "_id" }
    }

    struct LoginResponse: Decodable, Sendable {
        let id: String
        let token: String
        let refreshToken: String
        enum CodingKeys: String, CodingKey { case token, refreshToken, id = "_id" }
    }

    struct AccessTokenResponse: Decodable, Sendable { let token: String }

    struct WithdrawResponse: Decodable, Sendable {
        let id: String
        let email: String
        let nick: String
        enum CodingKeys: String, CodingKey { case email, nick, id = "_id" }
    }

    struct PostResponses: Decodable, Sendable {
        let data: [PostResponse]
        let nextCursor: String
        enum CodingKeys: String, CodingKey { case data, nextCursor = "next_cursor" }
    }

    /// `productID` is required: every thread the app reads must carry `product_id`.
    struct PostResponse: Decodable, Sendable {
        let likes: [String]
        let image: [String]
        let hashTags: [String?]
        let comments: [Comment]
        let id, time: String
        let creator: Creator
        let title: String?
        let content, content1, content2, content3, content4, content5: String?
        let productID: String

        enum CodingKeys: String, CodingKey {
            case likes, image, hashTags, comments
            case id = "_id"
            case creator, time, title, content, content1, content2, content3, content4, content5
            case productID = "product_id"
        }
    }

    struct Comment: Decodable, Sendable {
        let id, content, time: String
        let creator: Creator
        enum CodingKeys: String, CodingKey { case id = "_id", content, time, creator }
    }

    struct CommentDeleteResponse: Decodable, Sendable { let postID: String }

    struct Creator: Decodable, Sendable {
        let id, nick: String
        let profile: String?
        enum CodingKeys: String, CodingKey { case id = "_id", nick, profile }
    }

    /// Decodes my profile and (UserProfileViewModel) other users' profiles alike.
    struct MyProfile: Decodable, Sendable {
        let posts: [String]
        let followers, following: [Follow]
        let id, nick: String
        let email, phoneNum, birthDay, profile: String?
        enum CodingKeys: String, CodingKey {
            case posts, followers, following, id = "_id", email, nick, phoneNum, birthDay, profile
        }
    }

    struct Follow: Decodable, Sendable {
        let id, nick, profile: String?
        enum CodingKeys: String, CodingKey { case id = "_id", nick, profile }
    }

    struct FollowResponse: Decodable, Sendable {
        let user, following: String
        let followingStatus: Bool
        enum CodingKeys: String, CodingKey { case user, following, followingStatus = "following_status" }
    }

    struct PostDelete: Decodable, Sendable {
        let id: String?
        enum CodingKeys: String, CodingKey { case id = "_id" }
    }

    struct LikeResponse: Decodable, Sendable {
        let likeStatus: Bool
        enum CodingKeys: String, CodingKey { case likeStatus = "like_status" }
    }

    // MARK: Router (LSLProject/Network/API.swift)

    /// `SeSACAPI` with its `path`, `method`, `task` and `headers` (the headers before `adapt`).
    enum SeSACAPI: Sendable {
        case signUp(model: SignUp)
        case emailValidation(model: EmailValidation)
        case login(model: Login)
        case accessToken
        case withdraw
        case aPost(model: PostID)
        case allPost(model: AllPost)
        case postAdd(model: Post)
        case postEdit(model: Post, id: String)
        case postDel(model: PostID)
        case downloadImage(model: DownloadImage)
        case userPosts(model: UserID)
        case myProfile
        case userProfile(model: UserID)
        case profileEdit(model: ProfileEdit)
        case commentAdd(model: CommentMessage, id: String)
        case commentEdit(model: CommentEdit, message: CommentMessage)
        case commentDel(model: CommentDelete)
        case follow(model: UserID)
        case unfollow(model: UserID)
        case like(model: UserID)
        case likes

        static let sesacKey = "SesacKey"

        /// `multipart/form-data` declared in `headers` is replaced by Alamofire with the boundary-carrying type;
        /// `.requestJSONEncodable` adds `application/json` where `headers` has none (the comment delete).
        func request(token: String, refreshToken: String, key: String) throws -> TwinRequest {
            let auth = [(Self.sesacKey, key), ("Authorization", token)]
            switch self {
            case .signUp(let model):
                return try .json("POST", "/join", model, headers: [(Self.sesacKey, key)])
            case .emailValidation(let model):
                return try .json("POST", "/validation/email", model, headers: [(Self.sesacKey, key)])
            case .login(let model):
                return try .json("POST", "/login", model, headers: [(Self.sesacKey, key)])
            case .accessToken:
                return TwinRequest(
                    "GET", "/refresh",
                    headers: [("Authorization", token), (Self.sesacKey, key), ("Refresh", refreshToken)])
            case .withdraw:
                return TwinRequest("GET", "/withdraw", headers: auth)
            case .aPost(let model):
                return TwinRequest("GET", "/post/\(model.id)", headers: auth)
            case .allPost(let model):
                return TwinRequest(
                    "GET", "/post",
                    query: TwinQuery.alamofire([
                        ("next", model.next), ("limit", model.limit), ("product_id", model.productID),
                    ]),
                    headers: auth)
            case .postAdd(let model):
                return .multipart("POST", "/post", try Self.postForm(model), headers: auth)
            case .postEdit(let model, let id):
                return .multipart("PUT", "/post/\(id)", try Self.postForm(model), headers: auth)
            case .postDel(let model):
                return TwinRequest("DELETE", "/post/\(model.id)", headers: auth)
            case .downloadImage(let model):
                return TwinRequest("GET", "/\(model.path)", headers: auth)
            case .userPosts(let model):
                return TwinRequest("GET", "/post/user/\(model.id)", headers: auth)
            case .myProfile:
                return TwinRequest("GET", "/profile/me", headers: auth)
            case .userProfile(let model):
                return TwinRequest("GET", "/profile/\(model.id)", headers: auth)
            case .profileEdit(let model):
                // `profile` first (when a photo was picked): "profileImage.jpg", declared `profileImage/jpg`; then
                // nick, phoneNum, birthDay, an absent value sent as an empty part.
                var form = TwinMultipart()
                if let file = model.profile {
                    form.file("profile", filename: "profileImage.jpg", mimeType: "profileImage/jpg", bytes: Array(file))
                }
                form.text("nick", model.nick)
                form.text("phoneNum", model.phoneNum ?? "")
                form.text("birthDay", model.birthDay ?? "")
                return .multipart("PUT", "/profile/me", form, headers: auth)
            case .commentAdd(let model, let id):
                // `headers` sets application/json itself
                return try .json("POST", "/post/\(id)/comment", model, headers: auth)
            case .commentEdit(let model, let message):
                return try .json("PUT", "/post/\(model.id)/comment/\(model.commentID)", message, headers: auth)
            case .commentDel(let model):
                return try .json("DELETE", "/post/\(model.id)/comment/\(model.commentID)", model, headers: auth)
            case .follow(let model):
                return TwinRequest("POST", "/follow/\(model.id)", headers: auth)
            case .unfollow(let model):
                return TwinRequest("DELETE", "/follow/\(model.id)", headers: auth)
            case .like(let model):
                return TwinRequest("POST", "/post/like/\(model.id)", headers: auth)
            case .likes:
                return TwinRequest("GET", "/post/like/me", headers: auth)
            }
        }

        /// With a photo: `file` ("image.jpg", `image/jpg`) first, `title` (empty when there is no text), `product_id`;
        /// without: `title`, `product_id` — both force-unwrapped by the app.
        static func postForm(_ model: Post) throws -> TwinMultipart {
            var form = TwinMultipart()
            guard let productID = model.productID else {
                throw AppWouldCrash(description: "postAdd/postEdit without product_id")
            }
            if let file = model.file {
                form.file("file", filename: "image.jpg", mimeType: "image/jpg", bytes: Array(file))
                form.text("title", model.title ?? "")
            } else {
                guard let title = model.title else {
                    throw AppWouldCrash(description: "a thread with neither text nor photo")
                }
                form.text("title", title)
            }
            form.text("product_id", productID)
            return form
        }
    }

    // MARK: Interceptor (LSLProject/Protocol/SeSACRequestInterceptor.swift)

    /// `adapt`: `setValue(_:forHTTPHeaderField:)` for `Authorization`, `Refresh` and `SesacKey` on every request to
    /// the server, replacing what the router set.
    static func adapt(_ request: TwinRequest, token: String, refreshToken: String, key: String) -> TwinRequest {
        var adapted = request
        let set: [(String, String)] = [
            ("Authorization", iOSHeaderValue(token)), ("Refresh", iOSHeaderValue(refreshToken)), ("SesacKey", key),
        ]
        let names = Set(set.map { $0.0.lowercased() })
        adapted.headers = request.headers.filter { !names.contains($0.0.lowercased()) } + set
        return adapted
    }

    /// A header value as iOS puts it on the wire: the placeholders stored before the first login are Hangul, which
    /// URLSession cannot send in a header; each such character goes out as "?" ("토큰 없음" → "?? ??").
    static func iOSHeaderValue(_ value: String) -> String {
        String(String.UnicodeScalarView(value.unicodeScalars.map { $0.isASCII ? $0 : "?" }))
    }

    /// Kingfisher's `imageDownloadRequest` modifier (Base/BaseViewController.swift): `Authorization` and `SesacKey`.
    static func kingfisher(_ path: String, token: String, key: String) -> TwinRequest {
        TwinRequest("GET", "/\(path)", headers: [("Authorization", iOSHeaderValue(token)), ("SesacKey", key)])
    }

    /// Base/BaseTableViewCell.swift `timeAgoSinceDate`: ISO 8601 with fractional seconds, else "Invalid Date".
    static func timeAgoSinceDate(_ time: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.date(from: time)
    }

    /// BirthdayViewModel.dateFormat: "yyyy년 MM월 dd일".
    static func birthDay(year: Int, month: Int, day: Int) -> String {
        "\(year)년 \(String(format: "%02d", month))월 \(String(format: "%02d", day))일"
    }

    // MARK: Session (UserDefaultsManager + APIManager + SeSACRequestInterceptor)

    actor Session {
        let client: TwinClient
        let email: String
        let password: String
        // UserDefaultsManager, with UserDefaultsManagerDefaultValue's placeholders.
        private(set) var token = "토큰 없음"
        private(set) var refreshToken = "리프레시 토큰 없음"
        private(set) var id = "아이디 없음"
        private(set) var nickname = "닉네임 없음"
        private(set) var profile = "프로필 없음"
        private(set) var phoneNum = ""
        private(set) var birthDay = ""
        /// Every `GET /refresh` status the interceptor saw, in order.
        private(set) var refreshStatuses: [Int] = []

        init(client: TwinClient, email: String, password: String) {
            self.client = client
            self.email = email
            self.password = password
        }

        /// `provider.request(target)`: built with the stored values, adapted, and on 419 refreshed and retried
        /// (adapt runs again, so the retry carries the new token). A failed refresh fails the request.
        func request(_ target: SeSACAPI) async throws -> GatewayClient.Reply {
            let key = client.apiKey
            let built = try target.request(token: token, refreshToken: refreshToken, key: key)
            var reply = try await client.send(
                RaeBaekTwin.adapt(built, token: token, refreshToken: refreshToken, key: key))
            var rounds = 0
            while reply.status == 419 {
                guard rounds < 5 else {
                    Issue.record("Alamofire would keep retrying: still 419 after \(rounds) refreshes")
                    return reply
                }
                rounds += 1
                // repository.requestAccessToken(): the same provider, adapted the same way.
                let renewal = try SeSACAPI.accessToken.request(token: token, refreshToken: refreshToken, key: key)
                let renewed = try await client.send(
                    RaeBaekTwin.adapt(renewal, token: token, refreshToken: refreshToken, key: key))
                refreshStatuses.append(renewed.status)
                guard renewed.status == 200, let answer = try? client.decode(AccessTokenResponse.self, from: renewed)
                else {
                    return reply  // .doNotRetryWithError: the screen gets the failure
                }
                token = answer.token
                reply = try await client.send(
                    RaeBaekTwin.adapt(built, token: token, refreshToken: refreshToken, key: key))
            }
            return reply
        }

        /// `APIManager.request` for a screen: success is a 2xx (`.successCodes`; the server answers 200), then
        /// `response.map(T.self)`.
        func call<Model: Decodable>(
            _ target: SeSACAPI, as type: Model.Type, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> Model {
            let reply = try await request(target)
            #expect(reply.status == 200, "\(target): \(reply.status) \(reply.text)", sourceLocation: sourceLocation)
            return try client.decode(type, from: reply)
        }

        /// Kingfisher (profile photos), no interceptor.
        func kingfisher(_ path: String) async throws -> GatewayClient.Reply {
            try await client.send(RaeBaekTwin.kingfisher(path, token: token, key: client.apiKey))
        }

        /// EmailAddressViewModel → … → BirthdayViewModel: email check, join (phone and birthday may be skipped:
        /// nil), then login and my profile (stored in UserDefaults).
        static func signUp(
            _ client: TwinClient, nick: String = TestEnvironment.unique("threads"), password: String = "threads12",
            phoneNum: String? = "01012345678", birthDay: String? = RaeBaekTwin.birthDay(year: 1995, month: 3, day: 14)
        ) async throws
            -> (session: Session, join: SignUpResponse, profile: MyProfile)
        {
            let email = "\(TestEnvironment.unique("raebaek"))@example.com"
            let session = Session(client: client, email: email, password: password)
            let checked = try await session.call(
                .emailValidation(model: .init(email: email)), as: EmailValidationResponse.self)
            #expect(!checked.message.isEmpty)
            let join = try await session.call(
                .signUp(
                    model: .init(email: email, password: password, nick: nick, phoneNum: phoneNum, birthDay: birthDay)),
                as: SignUpResponse.self)
            #expect(join.email == email && join.nick == nick)
            let profile = try await session.logIn()
            #expect(profile.id == join.id)
            return (session, join, profile)
        }

        /// SignInViewModel / BirthdayViewModel: login, tokens and id stored, then my profile.
        @discardableResult
        func logIn() async throws -> MyProfile {
            let login = try await call(.login(model: .init(email: email, password: password)), as: LoginResponse.self)
            token = login.token
            refreshToken = login.refreshToken
            id = login.id
            let me = try await call(.myProfile, as: MyProfile.self)
            nickname = me.nick
            profile = me.profile ?? "basicUser"
            phoneNum = me.phoneNum ?? ""
            birthDay = me.birthDay ?? ""
            return me
        }

        /// ProfileEditViewModel: the answer's nick, profile, phone and birthday are stored.
        func storeEditedProfile(_ me: MyProfile) {
            nickname = me.nick
            profile = me.profile ?? "basicUser"
            phoneNum = me.phoneNum ?? ""
            birthDay = me.birthDay ?? ""
        }

        enum Launch: Equatable, Sendable { case main, loginScreen }

        /// TokenCheckViewModel (app launch): no token → login screen; else `GET /refresh` — 200 (renewed) or 409
        /// (still valid) → main; 418 or a common error → placeholders stored, login screen.
        func launch() async throws -> (screen: Launch, refreshStatus: Int?) {
            guard token != "토큰 없음" else { return (.loginScreen, nil) }
            let reply = try await request(.accessToken)
            switch reply.status {
            case 200:
                token = try client.decode(AccessTokenResponse.self, from: reply).token
                return (.main, 200)
            case 409:
                return (.main, 409)
            default:
                token = "토큰 없음"
                refreshToken = "리프레시 토큰 없음"
                return (.loginScreen, reply.status)
            }
        }

        /// LogoutViewController / WithdrawViewController: every UserDefaults value back to its placeholder.
        func resetToPlaceholders() {
            token = "토큰 없음"
            refreshToken = "리프레시 토큰 없음"
            nickname = "닉네임 없음"
            profile = "프로필 없음"
            phoneNum = ""
        }

        // MARK: Time passing (test-side only, as in AppSession)

        func letAccessTokenExpire() async throws {
            token = try await TwinTokens.expired(sameSessionAs: token, userId: id)
        }

        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: token)
        }
    }

    /// PostViewModel: the text (or nothing when only a photo is given) and the photo (JPEG data in the app).
    static func postThread(_ session: Session, text: String, photo: [UInt8]? = nil) async throws -> PostResponse {
        let model = Post(title: text.isEmpty ? nil : text, file: photo.map { Data($0) }, productID: productID)
        return try await session.call(.postAdd(model: model), as: PostResponse.self)
    }

    /// HomeViewModel: the first page with `next=""`, then, at the last row, the stored `next_cursor` while it is
    /// not "0", 10 at a time; pages appended.
    static func home(_ session: Session) async throws -> (posts: [PostResponse], pageSizes: [Int], cursors: [String]) {
        var posts: [PostResponse] = []
        var sizes: [Int] = []
        var cursors: [String] = []
        var next = ""
        repeat {
            let page = try await session.call(
                .allPost(model: .init(next: next, limit: "10", productID: productID)), as: PostResponses.self)
            posts += page.data
            sizes.append(page.data.count)
            cursors.append(page.nextCursor)
            next = page.nextCursor
        } while next != "0" && cursors.count < 5_000
        #expect(next == "0", "the home feed never ended")
        return (posts, sizes, cursors)
    }
}

@Suite("RaeBaek LSLProject twin")
struct RaeBaekTwinTests {
    typealias App = RaeBaekTwin

    /// A fresh install signs up (every request carries the adapted placeholder `Authorization`/`Refresh`), lands on
    /// the main screen with its profile; the same email is refused; the next launch's token check answers 409 (still
    /// valid: stay); a second member skips phone and birthday; logging out and launching shows the login screen
    /// without a request, and logging in works.
    @Test func signUpFromAFreshInstallThenLaunchAgain() async throws {
        let client = try TwinClient()
        let (member, join, me) = try await App.Session.signUp(client)
        #expect(me.email == member.email && me.nick == join.nick)
        #expect(me.phoneNum == "01012345678" && me.birthDay == "1995년 03월 14일")
        #expect(me.posts.isEmpty && me.followers.isEmpty && me.following.isEmpty && me.profile == nil)

        // EmailAddressViewModel again: 409 → "사용이 불가한 이메일입니다."; BirthdayViewModel: 409 → "이미 가입한 사용자입니다."
        let taken = try await member.request(.emailValidation(model: .init(email: member.email)))
        #expect(taken.status == 409, "\(taken.status) \(taken.text)")
        let again = try await member.request(
            .signUp(
                model: .init(
                    email: member.email, password: "threads12", nick: TestEnvironment.unique("threads"),
                    phoneNum: nil, birthDay: nil)))
        #expect(again.status == 409, "\(again.status) \(again.text)")

        // The next launch: the stored token is still valid.
        let launch = try await member.launch()
        #expect(launch.screen == .main && launch.refreshStatus == 409, "\(launch)")

        // "건너뛰기" on the phone and birthday screens.
        let (skipper, _, skipped) = try await App.Session.signUp(client, phoneNum: nil, birthDay: nil)
        #expect(skipped.phoneNum == nil && skipped.birthDay == nil)
        #expect(await skipper.nickname == skipped.nick)

        // Logout: placeholders, then the launch check shows the login screen; SignIn works.
        await member.resetToPlaceholders()
        let afterLogout = try await member.launch()
        #expect(afterLogout.screen == .loginScreen && afterLogout.refreshStatus == nil)
        let back = try await member.logIn()
        #expect(back.id == join.id)
    }

    /// PostViewController: a thread with a photo, one with text only, one with only a photo; the photos load through
    /// the repository (`.downloadImage`); the home feed is paged from `next=""` to `next_cursor == "0"`, 10 at a
    /// time, every thread once, mine newest first.
    @Test func threadsWithPhotosAndTheHomeFeed() async throws {
        let client = try TwinClient()
        let (writer, _, me) = try await App.Session.signUp(client)

        let withPhoto = try await App.postThread(writer, text: "오늘의 스레드 #threads", photo: TestImages.png)
        #expect(withPhoto.productID == App.productID && withPhoto.title == "오늘의 스레드 #threads")
        #expect(withPhoto.creator.id == me.id && withPhoto.creator.nick == me.nick)
        #expect(withPhoto.image.count == 1 && withPhoto.likes.isEmpty && withPhoto.comments.isEmpty)
        #expect(App.timeAgoSinceDate(withPhoto.time) != nil, "time \(withPhoto.time)")
        let photo = try await writer.request(.downloadImage(model: .init(path: withPhoto.image[0])))
        #expect(photo.status == 200 && photo.body == TestImages.png, "\(photo.status)")

        let textOnly = try await App.postThread(writer, text: "사진 없는 글")
        #expect(textOnly.image.isEmpty && textOnly.title == "사진 없는 글")
        let photoOnly = try await App.postThread(writer, text: "", photo: TestImages.png)
        #expect(photoOnly.image.count == 1)
        #expect(
            photoOnly.title == "" || photoOnly.title == nil,
            "an empty title part: \(String(describing: photoOnly.title))")

        // The shared feed must have a second page for the paging to be exercised: top it up once if it has not
        // (to 15: the other tests of this suite remove up to two threads of myThreads while this one pages).
        let first = try await writer.call(
            .allPost(model: .init(next: "", limit: "10", productID: App.productID)), as: App.PostResponses.self)
        if first.nextCursor == "0" {
            let (filler, _, _) = try await App.Session.signUp(client)
            for index in 0..<(15 - first.data.count) { _ = try await App.postThread(filler, text: "채우기 \(index)") }
        }

        let home = try await App.home(writer)
        let ids = home.posts.map(\.id)
        #expect(Set(ids).count == ids.count, "a thread came twice while paging")
        #expect(home.pageSizes.count >= 2 && home.pageSizes.allSatisfy { $0 <= 10 }, "pages: \(home.pageSizes)")
        #expect(home.cursors.last == "0")
        let positions = [photoOnly.id, textOnly.id, withPhoto.id].compactMap { ids.firstIndex(of: $0) }
        #expect(positions.count == 3 && positions == positions.sorted(), "my threads, newest first: \(positions)")
    }

    /// HomeDetailViewController: a like toggled twice, a comment written, edited (CommentEditViewModel reads the post
    /// first) and deleted (a DELETE with a JSON body); the author edits the thread (text only: the photo stays; a new
    /// photo: it is replaced) and deletes it.
    @Test func likesCommentsEditAndDelete() async throws {
        let client = try TwinClient()
        let (author, _, _) = try await App.Session.signUp(client)
        let (reader, _, readerMe) = try await App.Session.signUp(client)
        let thread = try await App.postThread(author, text: "댓글 달아주세요", photo: TestImages.png)

        let liked = try await reader.call(.like(model: .init(id: thread.id)), as: App.LikeResponse.self)
        #expect(liked.likeStatus)
        #expect(
            try await reader.call(.aPost(model: .init(id: thread.id)), as: App.PostResponse.self).likes == [readerMe.id]
        )
        let unliked = try await reader.call(.like(model: .init(id: thread.id)), as: App.LikeResponse.self)
        #expect(!unliked.likeStatus)

        let comment = try await reader.call(
            .commentAdd(model: .init(content: "첫 댓글"), id: thread.id), as: App.Comment.self)
        #expect(
            comment.creator.id == readerMe.id && comment.content == "첫 댓글" && App.timeAgoSinceDate(comment.time) != nil)

        let before = try await reader.call(.aPost(model: .init(id: thread.id)), as: App.PostResponse.self)
        #expect(before.comments.map(\.id) == [comment.id])
        let edited = try await reader.call(
            .commentEdit(model: .init(id: thread.id, commentID: comment.id), message: .init(content: "고친 댓글")),
            as: App.Comment.self)
        #expect(edited.id == comment.id && edited.content == "고친 댓글")

        let deleted = try await reader.call(
            .commentDel(model: .init(id: thread.id, commentID: comment.id)), as: App.CommentDeleteResponse.self)
        #expect(deleted.postID == thread.id)
        #expect(try await reader.call(.aPost(model: .init(id: thread.id)), as: App.PostResponse.self).comments.isEmpty)

        // PostEditViewModel: the post is read, then sent back with the new text and no photo (none was picked).
        _ = try await author.call(.aPost(model: .init(id: thread.id)), as: App.PostResponse.self)
        let retitled = try await author.call(
            .postEdit(model: .init(title: "고친 스레드", file: nil, productID: App.productID), id: thread.id),
            as: App.PostResponse.self)
        #expect(retitled.title == "고친 스레드" && retitled.image == thread.image, "an edit without a photo keeps it")
        let rephotographed = try await author.call(
            .postEdit(
                model: .init(title: "사진도 바꿈", file: Data(TestImages.png), productID: App.productID),
                id: thread.id), as: App.PostResponse.self)
        #expect(
            rephotographed.image.count == 1 && rephotographed.image != thread.image, "a new photo replaces the old one")

        let removed = try await author.call(.postDel(model: .init(id: thread.id)), as: App.PostDelete.self)
        #expect(removed.id == thread.id)
        let gone = try await reader.request(.aPost(model: .init(id: thread.id)))
        #expect(gone.status == 410, "a deleted thread: \(gone.status)")
    }

    /// UserProfileViewModel (my profile, the user's profile, their threads), follow and unfollow with the screen
    /// reloaded after each; MyProfileViewModel; the heart tab; ProfileEditViewModel with a photo (the new nick and
    /// photo are on the author's threads at once) and again without one (the photo stays).
    @Test func profilesFollowHeartsAndProfileEdit() async throws {
        let client = try TwinClient()
        let (author, _, authorMe) = try await App.Session.signUp(client)
        let (visitor, _, visitorMe) = try await App.Session.signUp(client, phoneNum: nil, birthDay: nil)
        let thread = try await App.postThread(author, text: "프로필 구경 오세요")

        func openProfile() async throws -> (me: App.MyProfile, user: App.MyProfile, posts: App.PostResponses) {
            let me = try await visitor.call(.myProfile, as: App.MyProfile.self)
            let user = try await visitor.call(.userProfile(model: .init(id: authorMe.id)), as: App.MyProfile.self)
            let posts = try await visitor.call(.userPosts(model: .init(id: authorMe.id)), as: App.PostResponses.self)
            return (me, user, posts)
        }
        let first = try await openProfile()
        #expect(
            first.user.id == authorMe.id && first.user.email == nil && first.user.phoneNum == nil,
            "someone else's profile hides private fields")
        #expect(first.user.posts == [thread.id] && first.posts.data.map(\.id) == [thread.id])
        #expect(!first.me.following.compactMap(\.id).contains(authorMe.id))

        let followed = try await visitor.call(.follow(model: .init(id: authorMe.id)), as: App.FollowResponse.self)
        #expect(followed.user == visitorMe.id && followed.following == authorMe.id && followed.followingStatus)
        let afterFollow = try await openProfile()
        #expect(afterFollow.me.following.compactMap(\.id) == [authorMe.id], "the button shows 'following' at once")
        #expect(afterFollow.user.followers.compactMap(\.id) == [visitorMe.id])
        let unfollowed = try await visitor.call(.unfollow(model: .init(id: authorMe.id)), as: App.FollowResponse.self)
        #expect(!unfollowed.followingStatus)
        let afterUnfollow = try await openProfile()
        #expect(afterUnfollow.me.following.isEmpty && afterUnfollow.user.followers.isEmpty)

        // The heart tab.
        _ = try await visitor.call(.like(model: .init(id: thread.id)), as: App.LikeResponse.self)
        let hearts = try await visitor.call(.likes, as: App.PostResponses.self)
        #expect(hearts.data.map(\.id) == [thread.id])

        // MyProfileViewModel.
        let mine = try await author.call(.myProfile, as: App.MyProfile.self)
        #expect(mine.posts == [thread.id] && mine.email == author.email)
        let myThreads = try await author.call(.userPosts(model: .init(id: authorMe.id)), as: App.PostResponses.self)
        #expect(myThreads.data.map(\.id) == [thread.id])

        // ProfileEditViewModel with a new photo; the text fields fall back to the stored values.
        let newNick = TestEnvironment.unique("threadsnew")
        let storedPhone = await author.phoneNum, storedBirthDay = await author.birthDay
        let edited = try await author.call(
            .profileEdit(
                model: .init(
                    nick: newNick, phoneNum: storedPhone, birthDay: storedBirthDay, profile: Data(TestImages.png))),
            as: App.MyProfile.self)
        #expect(edited.nick == newNick && edited.phoneNum == "01012345678" && edited.birthDay == "1995년 03월 14일")
        let photoPath = try #require(edited.profile, "the edited profile has no photo")
        await author.storeEditedProfile(edited)
        let photo = try await author.kingfisher(photoPath)
        #expect(photo.status == 200 && photo.body == TestImages.png, "\(photoPath): \(photo.status)")
        let seen = try await visitor.call(.aPost(model: .init(id: thread.id)), as: App.PostResponse.self)
        #expect(
            seen.creator.nick == newNick && seen.creator.profile == photoPath,
            "the new nick and photo on the author's thread")

        // Edited again without a photo (and the same text values): the photo stays.
        let again = try await author.call(
            .profileEdit(model: .init(nick: newNick, phoneNum: "01098765432", birthDay: storedBirthDay, profile: nil)),
            as: App.MyProfile.self)
        #expect(again.profile == photoPath && again.phoneNum == "01098765432")
    }

    /// SeSACRequestInterceptor: an expired access token is renewed (`GET /refresh`) and the request retried with
    /// the new token; once the refresh token has expired too, the refresh answers 418 and the request fails; the
    /// next launch's token check gets 418 and shows the login screen; logging in works.
    @Test func tokenRenewalThenExpiredRefreshToken() async throws {
        let client = try TwinClient()
        let (member, _, _) = try await App.Session.signUp(client)

        try await member.letAccessTokenExpire()
        let home = try await member.call(
            .allPost(model: .init(next: "", limit: "10", productID: App.productID)), as: App.PostResponses.self)
        #expect(home.data.count <= 10)
        #expect(await member.refreshStatuses == [200])

        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let failed = try await member.request(.myProfile)
        #expect(failed.status == 419, "the request fails with its own status: \(failed.status)")
        #expect(await member.refreshStatuses == [200, 418])

        let launch = try await member.launch()
        #expect(launch.screen == .loginScreen && launch.refreshStatus == 418, "\(launch)")
        let me = try await member.logIn()
        #expect(me.email == member.email)
    }

    /// WithdrawViewController: `GET /withdraw`, placeholders stored, the login screen; the old token is refused on
    /// the next request, the login too, and the member's threads are gone for others.
    @Test func withdrawFromSettings() async throws {
        let client = try TwinClient()
        let (member, join, _) = try await App.Session.signUp(client)
        let (other, _, _) = try await App.Session.signUp(client)
        let thread = try await App.postThread(member, text: "곧 탈퇴합니다")

        let oldToken = await member.token
        let withdrawn = try await member.call(.withdraw, as: App.WithdrawResponse.self)
        #expect(withdrawn.id == join.id && withdrawn.email == member.email && withdrawn.nick == join.nick)
        await member.resetToPlaceholders()
        #expect(try await member.launch().screen == .loginScreen)

        let refused = try await client.send(
            App.adapt(
                try App.SeSACAPI.myProfile.request(token: oldToken, refreshToken: "", key: client.apiKey),
                token: oldToken, refreshToken: "", key: client.apiKey))
        #expect(refused.status == 401, "the withdrawn member's token: \(refused.status) \(refused.text)")
        let login = try await member.request(.login(model: .init(email: member.email, password: member.password)))
        #expect(login.status == 401)
        let gone = try await other.request(.aPost(model: .init(id: thread.id)))
        #expect(gone.status == 410, "a withdrawn member's thread: \(gone.status)")
    }

    /// PostViewController has no length limit on the thread text, which the app sends as `title`: a long thread
    /// must be posted (server finding: titles are capped at 500 characters).
    @Test func aLongThreadIsPosted() async throws {
        let client = try TwinClient()
        let (writer, _, _) = try await App.Session.signUp(client)
        let text = String(repeating: "긴 글을 써 봅니다. ", count: 100)  // 1 200 characters
        let reply = try await writer.request(.postAdd(model: .init(title: text, file: nil, productID: App.productID)))
        #expect(reply.status == 200, "a \(text.count)-character thread: \(reply.status) \(reply.text)")
    }
}
