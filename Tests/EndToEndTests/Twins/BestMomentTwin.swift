import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **Best Moment** (github.com/strongyeom/Best_Moment_SNS_Project, G0, Nov–Dec 2023): a feed of
/// "moments" — one photo and a lower-cased text with `#hashtags` — under the hard-coded `product_id` `"yeom"`;
/// likes (a toggle), comments (percent-encoded by the app, decoded for display), follow from the feed, a
/// "following" tab filtered by the followed users' nicks, my page with "my posts" (the feed filtered by my id)
/// and "liked posts" (`post/like/me`), profile edit (nick + photo), post edit (text + photo), post delete.
///
/// Network layer (`BestMoment/Network/`): Alamofire, one `Router: URLRequestConvertible` (paths without a
/// leading `/` appended to `BaseAPI.baseUrl`), queries of GET/DELETE through
/// `URLEncodedFormParameterEncoder(destination: .methodDependent)` (sorted keys, empty values kept: `limit=&next=`),
/// JSON bodies of `[String: String]` through `JSONParameterEncoder(encoder: JSONEncoder())`, uploads with
/// `AF.upload` whose text parts are declared `text/plain` and whose file name is the router's path + `.jpg`
/// (`post.jpg`, `post/<id>.jpg`, `profile/me.jpg`) declared `image/jpg`. Every call goes through `AuthManager`:
/// `adapt` sets `Authorization` to the stored token, `retry` on **419** calls `GET /refresh` (no interceptor, no
/// `validate`) → `{token}` → retry; any refresh failure puts the login screen up. Images are Kingfisher GETs of
/// `BaseAPI.baseUrl + path` with `SesacKey` and `Authorization`.
///
/// Not twinned: on a fresh install `adapt` puts the placeholder `"엑세스 토큰 없음"` (non-ASCII) in
/// `Authorization` of the sign-up and login calls; how CFNetwork puts that on the wire is not known, so the
/// twin sends no `Authorization` until a token is stored. Chat: none in the app.
enum BestMomentTwin {
    /// `"yeom"`: AddRoutinViewModel, EditViewModel, MainViewController, FollowingViewController, MyPostViewController.
    static let productID = "yeom"

    // MARK: - Decodable models (Best Moment: BestMoment/model/APIModel.swift)

    struct JoinResponse: Decodable, Sendable {
        let _id: String
        let email: String
        let nick: String
    }

    struct TokenResponse: Decodable, Sendable {
        let _id: String
        let token: String
        let refreshToken: String
    }

    struct ValidateEmailResponse: Decodable, Sendable {
        let message: String
    }

    /// The create answer. `comments: [String]` (a new post has none) and `content` required.
    struct AddPostResponse: Decodable, Sendable {
        var likes: [String]
        var image: [String]
        var hashTags: [String]
        var comments: [String]
        var _id: String
        var creator: Creator
        var time: String
        var content: String
        var product_id: String
    }

    /// The feed, "my posts", "liked posts": `next_cursor` falls back to `"0"` when it cannot be decoded.
    struct ReadPostResponse: Decodable, Sendable {
        var data: [ElementReadPostResponse]
        var next_cursor: String

        enum CodingKeys: CodingKey {
            case data
            case next_cursor
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.data = try container.decode([ElementReadPostResponse].self, forKey: .data)
            do {
                self.next_cursor = try container.decode(String.self, forKey: .next_cursor)
            } catch {
                self.next_cursor = "0"
            }
        }
    }

    /// A post of a list, and the edit answer. `title` optional, `content` and `product_id` required.
    struct ElementReadPostResponse: Decodable, Hashable, Sendable {
        var likes: [String]
        var image: [String]
        var hashTags: [String]
        var comments: [CommentPostResponse]
        var _id: String
        var creator: Creator
        var time: String
        var title: String?
        var content: String
        var product_id: String
    }

    struct Creator: Decodable, Hashable, Sendable {
        var _id: String
        var nick: String
        var profile: String?
    }

    struct RefreshResponse: Decodable, Sendable {
        let token: String
    }

    /// The withdraw answer.
    struct LogOutResponse: Decodable, Sendable {
        let _id: String
        let email: String
        let nick: String
    }

    struct LikeResponse: Decodable, Sendable {
        let like_status: Bool
    }

    struct RemovePostResponse: Decodable, Sendable {
        let _id: String
    }

    struct CommentPostResponse: Decodable, Hashable, Sendable {
        let _id: String
        let content: String
        let time: String
        let creator: Creator
    }

    struct CommentRemoveResponse: Decodable, Sendable {
        let postID: String
        let commentID: String
    }

    struct GetProfileResponse: Decodable, Sendable {
        let posts: [String]
        let followers: [Creator]
        let following: [Creator]
        let _id: String
        let email: String
        let nick: String
        let profile: String?
    }

    struct GetAnotherProfileResponse: Decodable, Sendable {
        let posts: [String]
        let followers: [Creator]
        let following: [Creator]
        let _id: String
        let nick: String
        let profile: String?
    }

    /// The profile edit answer: `profile` required (the edit screen always sends a photo).
    struct PutProfileResponse: Decodable, Sendable {
        let posts: [String]
        let followers: [Creator]
        let following: [Creator]
        let _id: String
        let email: String
        let nick: String
        let profile: String
    }

    struct FollowerStatusResponse: Decodable, Sendable {
        let user: String
        let following: String
        let following_status: Bool
    }

    // MARK: - Router (Best Moment: BestMoment/Network/Router.swift)

    enum Router: Sendable {
        case signup(email: String, password: String, nickname: String)
        case login(email: String, password: String)
        case valid(email: String)
        case addPost(accessToken: String, content: String, product_id: String)
        case readPost(accessToken: String, next: String, limit: String, product_id: String)
        case modifyPost(asccessToken: String, postID: String, content: String, product_id: String)
        case refresh(access: String, refresh: String)
        case deleteAccount(access: String)
        case like(access: String, postID: String)
        case removePost(access: String, postID: String)
        case commentPost(access: String, postID: String, comment: String)
        case removeComment(access: String, postID: String, commentID: String)
        case getLikes(accessToken: String, next: String, limit: String)
        case getProfile(accessToken: String)
        case putProfile(accessToken: String, nick: String)
        case follow(accessToken: String, userID: String)
        case unFollower(accessToken: String, userID: String)
        case anotherGetProfile(accessToken: String, userID: String)

        /// Appended to `BaseAPI.baseUrl` with `appendingPathComponent` (so `/join`, `/post/like/{id}`, …); also
        /// the upload's file name stem (`post.jpg`, `post/{id}.jpg`, `profile/me.jpg`).
        var path: String {
            switch self {
            case .signup: return "join"
            case .login: return "login"
            case .valid: return "validation/email"
            case .addPost, .readPost: return "post"
            case .modifyPost(_, let postID, _, _): return "post/\(postID)"
            case .refresh: return "refresh"
            case .deleteAccount: return "withdraw"
            case .like(_, let id): return "post/like/\(id)"
            case .removePost(_, let id): return "post/\(id)"
            case .commentPost(_, let id, _): return "post/\(id)/comment"
            case .removeComment(_, let id, let commentID): return "post/\(id)/comment/\(commentID)"
            case .getLikes: return "post/like/me"
            case .getProfile, .putProfile: return "profile/me"
            case .follow(_, let userID), .unFollower(_, let userID): return "follow/\(userID)"
            case .anotherGetProfile(_, let userID): return "profile/\(userID)"
            }
        }

        func header(secretKey: String) -> [(String, String)] {
            switch self {
            case .signup, .login, .valid:
                return [("Content-Type", "application/json"), ("SesacKey", secretKey)]
            case .addPost(let token, _, _), .putProfile(let token, _), .modifyPost(let token, _, _, _):
                // AF.upload replaces this bare type with the one carrying the boundary.
                return [("Authorization", token), ("Content-Type", "multipart/form-data"), ("SesacKey", secretKey)]
            case .refresh(let token, let refresh):
                return [("Authorization", token), ("SesacKey", secretKey), ("Refresh", refresh)]
            case .deleteAccount(let token), .readPost(let token, _, _, _), .like(let token, _),
                .removePost(let token, _),
                .removeComment(let token, _, _), .getLikes(let token, _, _), .getProfile(let token),
                .unFollower(let token, _),
                .follow(let token, _), .anotherGetProfile(let token, _):
                return [("Authorization", token), ("SesacKey", secretKey)]
            case .commentPost(let token, _, _):
                return [("Authorization", token), ("Content-Type", "application/json"), ("SesacKey", secretKey)]
            }
        }

        var method: String {
            switch self {
            case .signup, .login, .valid, .deleteAccount, .addPost, .like, .commentPost, .follow: return "POST"
            case .refresh, .readPost, .getLikes, .getProfile, .anotherGetProfile: return "GET"
            case .removePost, .removeComment, .unFollower: return "DELETE"
            case .putProfile, .modifyPost: return "PUT"
            }
        }

        var query: [String: String]? {
            switch self {
            case .signup(let email, let password, let nickname):
                return ["email": email, "password": password, "nick": nickname]
            case .login(let email, let password):
                return ["email": email, "password": password]
            case .valid(let email):
                return ["email": email]
            case .addPost(_, let content, let productID), .modifyPost(_, _, let content, let productID):
                return ["content": content, "product_id": productID]
            case .readPost(_, let next, let limit, let productID):
                return ["next": next, "limit": limit, "product_id": productID]
            case .getLikes(_, let next, let limit):
                return ["next": next, "limit": limit]
            case .refresh, .deleteAccount, .like, .removePost, .removeComment, .getProfile, .follow, .unFollower,
                .anotherGetProfile:
                return nil
            case .commentPost(_, _, let content):
                return ["content": content]
            case .putProfile(_, let nickname):
                return ["nick": nickname]
            }
        }

        /// `asURLRequest()`: the `URLEncodedFormParameterEncoder(destination: .methodDependent)` cases put the
        /// query into the URL for GET/DELETE (sorted keys, `key=` for an empty value) and into a form body for
        /// POST/PUT — only the uploads have one there, and `AF.upload` sends the multipart body instead (the
        /// twin's upload functions build it). The other cases go through `JSONParameterEncoder(encoder:
        /// JSONEncoder())` (no body for `nil`; `Content-Type` is already in the router's headers).
        func asURLRequest(secretKey: String) throws -> TwinRequest {
            var request = TwinRequest(method, "/" + path, headers: header(secretKey: secretKey))
            switch self {
            case .addPost, .refresh, .like, .removePost, .readPost, .removeComment, .getLikes, .getProfile, .putProfile,
                .follow,
                .unFollower, .modifyPost, .anotherGetProfile:
                if let query, method == "GET" || method == "DELETE" {
                    request.query = TwinQuery.alamofire(query.map { ($0.key, $0.value) })
                }
            default:
                if let query { request.body = try JSONEncoder().encode(query) }
            }
            return request
        }
    }

    /// What a screen gets from `APIManager`: the decoded answer, or the status of a failure (the app turns it
    /// into `NetworkAPIError`/`AddPostError`/… with a Korean alert, or into nothing for a status it does not know).
    enum Outcome<T: Sendable>: Sendable {
        case success(T)
        case failure(status: Int, body: String)

        var value: T? {
            if case .success(let value) = self { return value }
            return nil
        }

        var status: Int? {
            if case .failure(let status, _) = self { return status }
            return nil
        }
    }

    struct StepFailed: Error, CustomStringConvertible {
        let step: String
        var description: String { "Best Moment step failed: \(step)" }
    }

    // MARK: - APIManager + AuthManager + UserDefaultsManager (Best Moment: Network/APIManager.swift,
    //         Network/AuthManager.swift, UserDefaults/UserDefaultsManager.swift)

    actor Session {
        let client: TwinClient
        // UserDefaultsManager
        private(set) var userID: String?
        private(set) var accessToken: String?
        private(set) var refreshToken: String?
        /// `isVaild` (`backToRoot`/`backToCall`): true once the home screen was shown, false when the interceptor
        /// puts the login screen up.
        private(set) var isVaild = false
        // Test-side bookkeeping.
        private(set) var email = ""
        private(set) var password = ""
        private(set) var refreshStatuses: [Int] = []
        private(set) var loginScreens = 0
        private(set) var lastStatus = 0
        private(set) var lastBody = ""

        init(client: TwinClient) {
            self.client = client
        }

        /// `UserDefaultsManager.shared.accessToken` (`?? "엑세스 토큰 없음"`), as the router cases are built with it.
        var storedAccessToken: String { accessToken ?? "엑세스 토큰 없음" }
        var storedRefreshToken: String { refreshToken ?? "리프레쉬 토큰 없음" }

        /// `AuthManager.adapt`: `setValue(accessToken, forHTTPHeaderField: "Authorization")` — replaces the
        /// router's value. (No stored token yet: see the type's comment; the twin sends none.)
        private func adapt(_ request: TwinRequest) -> TwinRequest {
            var request = request
            request.headers.removeAll { $0.0.lowercased() == "authorization" }
            if let accessToken { request.headers.append(("Authorization", accessToken)) }
            return request
        }

        private func record(_ reply: GatewayClient.Reply) -> GatewayClient.Reply {
            lastStatus = reply.status
            lastBody = reply.text
            return reply
        }

        /// `AF.request(api, interceptor: AuthManager())` / `AF.upload(…, with: api, interceptor: AuthManager())`
        /// with `.validate(statusCode: 200...300)`: a 419 makes `AuthManager.retry` renew the token and send the
        /// same request again (adapted with the new token); nothing else is retried.
        private func intercepted(_ request: TwinRequest) async throws -> GatewayClient.Reply {
            let first = record(try await client.send(adapt(request)))
            guard first.status == 419 else { return first }
            guard try await renew() else { return first }
            return record(try await client.send(adapt(request)))
        }

        /// `AuthManager.retry`: `AF.request(Router.refresh(access:refresh:))` — no interceptor, no `validate`,
        /// `responseDecodable(of: RefreshResponse.self)`: a decoded `{token}` is stored and the request retried;
        /// any failure (409, 418, 401, …) sets `backToRoot(false)` and makes `LoginViewController` the root.
        private func renew() async throws -> Bool {
            let request = try Router.refresh(access: storedAccessToken, refresh: storedRefreshToken).asURLRequest(
                secretKey: client.apiKey)
            let reply = try await client.send(request)
            refreshStatuses.append(reply.status)
            if (200..<300).contains(reply.status) {
                accessToken = try client.decode(RefreshResponse.self, from: reply).token
                return true
            }
            if let renewed = try? JSONDecoder().decode(RefreshResponse.self, from: Data(reply.body)) {
                accessToken = renewed.token
                return true
            }
            isVaild = false
            loginScreens += 1
            return false
        }

        /// `validate(statusCode: 200...300)` then `responseDecodable(of: T.self)`: a 2xx that does not decode fails
        /// the test (the app's observable would never emit); any other status is a failure.
        private func outcome<T: Decodable & Sendable>(_ reply: GatewayClient.Reply, _ type: T.Type) throws -> Outcome<T>
        {
            if (200...300).contains(reply.status) { return .success(try client.decode(type, from: reply)) }
            return .failure(status: reply.status, body: reply.text)
        }

        // Best Moment: APIManager.requestAPIFunction(type:api:section:)
        func requestAPIFunction<T: Decodable & Sendable>(_ type: T.Type, _ api: (String) -> Router) async throws
            -> Outcome<T>
        {
            let request = try api(storedAccessToken).asURLRequest(secretKey: client.apiKey)
            return try outcome(try await intercepted(request), type)
        }

        /// The three uploads: one `text/plain` part per router query item (in the dictionary's order), then the
        /// image (if any) as `"\(api.path).jpg"`, `image/jpg`, under `fileField`.
        private func upload<T: Decodable & Sendable>(
            _ api: Router, fileField: String, imageData: [UInt8]?, as type: T.Type
        ) async throws -> Outcome<T> {
            var form = TwinMultipart()
            for (key, value) in api.query ?? [:] {
                form.text(key, value, mimeType: "text/plain")
            }
            if let imageData {
                form.file(fileField, filename: "\(api.path).jpg", mimeType: "image/jpg", bytes: imageData)
            }
            var request = try api.asURLRequest(secretKey: client.apiKey)
            request.query = nil
            request.headers =
                request.headers.filter { $0.0.lowercased() != "content-type" } + [("Content-Type", form.contentType)]
            request.body = form.encoded()
            return try outcome(try await intercepted(request), type)
        }

        // Best Moment: APIManager.requestAddPost(api:imageData:) — part `file`.
        func requestAddPost(content: String, imageData: [UInt8]?) async throws -> Outcome<AddPostResponse> {
            try await upload(
                .addPost(accessToken: storedAccessToken, content: content, product_id: BestMomentTwin.productID),
                fileField: "file", imageData: imageData, as: AddPostResponse.self)
        }

        // Best Moment: APIManager.requestModifyPost(api:imageData:) — part `file`, file name `post/<id>.jpg`.
        func requestModifyPost(postID: String, content: String, imageData: [UInt8]?) async throws -> Outcome<
            ElementReadPostResponse
        > {
            try await upload(
                .modifyPost(
                    asccessToken: storedAccessToken, postID: postID, content: content,
                    product_id: BestMomentTwin.productID),
                fileField: "file", imageData: imageData, as: ElementReadPostResponse.self)
        }

        // Best Moment: APIManager.requestPutProfile(api:imageData:) — parts `nick` (text/plain), `profile`
        // (`profile/me.jpg`, image/jpg).
        func requestPutProfile(nick: String, imageData: [UInt8]?) async throws -> Outcome<PutProfileResponse> {
            try await upload(
                .putProfile(accessToken: storedAccessToken, nick: nick), fileField: "profile", imageData: imageData,
                as: PutProfileResponse.self)
        }

        /// Kingfisher with `AnyModifier`: `URL(string: BaseAPI.baseUrl + path)`, `SesacKey` and `Authorization`
        /// set; no interceptor.
        func image(_ path: String) async throws -> GatewayClient.Reply {
            var headers = [("SesacKey", client.apiKey)]
            headers.append(("Authorization", storedAccessToken))
            return record(try await client.send(TwinRequest("GET", "/" + path, headers: headers)))
        }

        // MARK: Screens

        /// SignupViewController: "중복 확인" (`valid`) then "회원가입" (`signup`).
        func signUp(email: String, password: String, nick: String) async throws -> JoinResponse {
            let check = try await requestAPIFunction(ValidateEmailResponse.self) { _ in .valid(email: email) }
            #expect(check.value != nil, "email check: \(lastStatus) \(lastBody)")
            let joined = try require(
                try await requestAPIFunction(JoinResponse.self) { _ in
                    .signup(email: email, password: password, nickname: nick)
                }, "join")
            self.email = email
            self.password = password
            return joined
        }

        /// LoginViewController: stores `_id`, `token`, `refreshToken`, then shows the tab bar (MainViewController
        /// sets `backToRoot(isRoot: true)`).
        func login() async throws -> TokenResponse {
            let (email, password) = (self.email, self.password)
            let response = try require(
                try await requestAPIFunction(TokenResponse.self) { _ in .login(email: email, password: password) },
                "login")
            userID = response._id
            accessToken = response.token
            refreshToken = response.refreshToken
            isVaild = true
            return response
        }

        /// A value, or a recorded issue naming the step and the last answer.
        func require<T: Sendable>(
            _ outcome: Outcome<T>, _ step: String, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> T {
            if case .success(let value) = outcome { return value }
            Issue.record(
                "\(step): \(outcome) — last answer \(lastStatus) \(lastBody.prefix(400))",
                sourceLocation: sourceLocation)
            throw StepFailed(step: step)
        }

        /// `requestAPIFunction` that must give a value.
        func call<T: Decodable & Sendable>(
            _ type: T.Type, _ step: String, sourceLocation: SourceLocation = #_sourceLocation,
            _ api: (String) -> Router
        ) async throws -> T {
            try require(try await requestAPIFunction(type, api), step, sourceLocation: sourceLocation)
        }

        // MARK: Time passing (test-side only, as in AppSession)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: storedAccessToken, userId: userID ?? "")
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: storedAccessToken)
        }
    }

    // MARK: - Journeys' building blocks

    /// A new member through SignupViewController and LoginViewController.
    static func newUser(_ client: TwinClient) async throws -> (Session, TokenResponse, nick: String) {
        let session = Session(client: client)
        let nick = TestEnvironment.unique("bm")
        let joined = try await session.signUp(
            email: "\(nick)@bestmoment.example.com", password: "moment1234", nick: nick)
        #expect(joined.nick == nick && joined.email == "\(nick)@bestmoment.example.com")
        let login = try await session.login()
        #expect(login._id == joined._id)
        return (session, login, nick)
    }

    /// MainViewController.getPost(next:limit:): `getProfile` (my id, the ids I follow) and `readPost` together.
    static func home(_ session: Session, next: String = "", limit: String = "") async throws -> (
        me: GetProfileResponse, page: ReadPostResponse
    ) {
        let me = try await session.call(GetProfileResponse.self, "home: my profile") { .getProfile(accessToken: $0) }
        let page = try await session.call(ReadPostResponse.self, "home: feed") {
            .readPost(accessToken: $0, next: next, limit: limit, product_id: productID)
        }
        return (me, page)
    }

    /// MainViewController scrolled to the bottom again and again: the first page with `limit=""`, then
    /// `getPost(next: nextCursor, limit: likeRow >= 5 ? "\(likeRow + 1)" : "")` while `nextCursor != "0"`, where
    /// `likeRow` is the last row the table configured (the bottom one). The feed is shared by every Best Moment
    /// journey; the page cap only guards against a cursor loop.
    static func scrollFeedToEnd(_ session: Session) async throws -> (rows: [ElementReadPostResponse], pages: Int) {
        var page = try await session.call(ReadPostResponse.self, "feed page 1") {
            .readPost(accessToken: $0, next: "", limit: "", product_id: productID)
        }
        var rows = page.data
        var pages = 1
        while page.next_cursor != "0" {
            let likeRow = rows.count - 1
            let limit = likeRow >= 5 ? "\(likeRow + 1)" : ""
            let cursor = page.next_cursor
            page = try await session.call(ReadPostResponse.self, "feed page \(pages + 1)") {
                .readPost(accessToken: $0, next: cursor, limit: limit, product_id: productID)
            }
            rows += page.data
            pages += 1
            if pages >= 1_000 {
                Issue.record("the feed never reached next_cursor \"0\"")
                break
            }
        }
        return (rows, pages)
    }

    /// AddRoutinViewController "저장하기": the text view lower-cases everything typed; one photo (JPEG at 0.3 in
    /// the app; the test PNG here) is required by the view model (`combineLatest` with the image).
    static func addMoment(_ session: Session, text: String) async throws -> AddPostResponse {
        let added = try await session.require(
            try await session.requestAddPost(content: text.lowercased(), imageData: TestImages.png), "add post")
        #expect(added.product_id == productID)
        #expect(added.content == text.lowercased())
        #expect(added.image.count == 1)
        #expect(added.comments.isEmpty && added.likes.isEmpty)
        return added
    }

    /// CommentViewModel: `text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!`.
    static func encodeComment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed)!
    }
}

@Suite("Best Moment twin")
struct BestMomentTwinTests {
    typealias Twin = BestMomentTwin

    /// Sign-up (email check, join, login) → home → a moment with a photo → the feed scrolled to the end → my
    /// posts → edit (text and photo) → a visitor likes, finds it in "liked posts", unlikes, comments (percent-
    /// encoded), deletes the comment, tries to delete the post (445) → the author deletes it.
    @Test func momentLikeCommentEditAndDelete() async throws {
        let client = try TwinClient()
        let (author, authorLogin, authorNick) = try await Twin.newUser(client)

        // The duplicate check of a taken email: 409, the app's "이미 가입된 유저 입니다."
        let taken = try await author.requestAPIFunction(Twin.ValidateEmailResponse.self) { _ in
            .valid(email: "\(authorNick)@bestmoment.example.com")
        }
        #expect(taken.status == 409)

        // First screen: home (my profile + the feed), right after sign-up.
        let (me, _) = try await Twin.home(author)
        #expect(me._id == authorLogin._id && me.nick == authorNick && me.posts.isEmpty && me.profile == nil)

        // A moment: photo + lower-cased text with hashtags.
        let moment = try await Twin.addMoment(author, text: "#순간 #Sunset\n\n오늘 본 노을이 가장 기억에 남는 순간")
        #expect(moment.hashTags == ["순간", "sunset"])
        #expect(
            moment.creator._id == authorLogin._id && moment.creator.nick == authorNick && moment.creator.profile == nil)
        let photo = try await author.image(try #require(moment.image.first))
        #expect(photo.status == 200 && photo.body == TestImages.png)

        // Home again (viewWillAppear): the new moment heads the first page; then the whole feed.
        let (_, first) = try await Twin.home(author)
        #expect(first.data.contains { $0._id == moment._id })
        let (rows, _) = try await Twin.scrollFeedToEnd(author)
        let ids = rows.map(\._id)
        #expect(Set(ids).count == ids.count, "no post repeated across pages")
        #expect(ids.contains(moment._id))
        #expect(rows.allSatisfy { $0.product_id == Twin.productID })

        // My page → "내 게시물": the feed (limit 20) filtered by my id; the post count.
        let profile = try await author.call(Twin.GetProfileResponse.self, "my page") { .getProfile(accessToken: $0) }
        #expect(profile.posts.contains(moment._id))
        let myPage = try await author.call(Twin.ReadPostResponse.self, "my posts") {
            .readPost(accessToken: $0, next: "", limit: "20", product_id: Twin.productID)
        }
        #expect(myPage.data.filter { $0.creator._id == profile._id }.map(\._id).contains(moment._id))

        // Edit: new text and a new photo (the edit screen requires one).
        let edited = try await author.require(
            try await author.requestModifyPost(postID: moment._id, content: "수정한 #순간", imageData: TestImages.png),
            "edit post")
        #expect(edited._id == moment._id && edited.content == "수정한 #순간" && edited.hashTags == ["순간"])
        #expect(edited.image.count == 1 && edited.image != moment.image, "the edit's photo replaces the old one")

        // A visitor: home, ♡, the list reloads with limit = rows shown.
        let (visitor, visitorLogin, visitorNick) = try await Twin.newUser(client)
        let (_, visitorHome) = try await Twin.home(visitor)
        #expect(visitorHome.data.contains { $0._id == moment._id })
        let like = try await visitor.call(Twin.LikeResponse.self, "like") { .like(access: $0, postID: moment._id) }
        #expect(like.like_status)
        let rowsShown = visitorHome.data.count
        let reloaded = try await visitor.call(Twin.ReadPostResponse.self, "feed after like") {
            .readPost(
                accessToken: $0, next: "", limit: rowsShown - 1 >= 5 ? "\(rowsShown)" : "", product_id: Twin.productID)
        }
        #expect(reloaded.data.first { $0._id == moment._id }?.likes == [visitorLogin._id], "the heart is filled")

        // "좋아요한 게시물": post/like/me, limit 20.
        let liked = try await visitor.call(Twin.ReadPostResponse.self, "liked posts") {
            .getLikes(accessToken: $0, next: "", limit: "20")
        }
        #expect(liked.data.map(\._id) == [moment._id])
        #expect(liked.next_cursor == "0")
        let unlike = try await visitor.call(Twin.LikeResponse.self, "unlike") { .like(access: $0, postID: moment._id) }
        #expect(!unlike.like_status)
        let likedAfter = try await visitor.call(Twin.ReadPostResponse.self, "liked posts after unlike") {
            .getLikes(accessToken: $0, next: "", limit: "20")
        }
        #expect(likedAfter.data.isEmpty)

        // Comment: the app percent-encodes the text and decodes it for display.
        let text = "노을 색이 정말 예뻐요! 어디서 찍으셨어요?"
        let encoded = Twin.encodeComment(text)
        let comment = try await visitor.call(Twin.CommentPostResponse.self, "comment") {
            .commentPost(access: $0, postID: moment._id, comment: encoded)
        }
        #expect(comment.content == encoded && comment.content.removingPercentEncoding == text)
        #expect(comment.creator._id == visitorLogin._id && comment.creator.nick == visitorNick)
        let (_, withComment) = try await Twin.home(visitor)
        let commented = try #require(withComment.data.first { $0._id == moment._id })
        #expect(commented.comments.map(\._id) == [comment._id], "the comment sheet gets the post's comments")

        // Swipe to delete my comment.
        let removed = try await visitor.call(Twin.CommentRemoveResponse.self, "delete comment") {
            .removeComment(access: $0, postID: moment._id, commentID: comment._id)
        }
        #expect(removed.postID == moment._id && removed.commentID == comment._id)
        let (_, afterComment) = try await Twin.home(visitor)
        #expect(afterComment.data.first { $0._id == moment._id }?.comments.isEmpty == true)

        // The "삭제" menu on someone else's moment (the app does not check the owner): 445.
        let notMine = try await visitor.requestAPIFunction(Twin.RemovePostResponse.self) {
            .removePost(access: $0, postID: moment._id)
        }
        #expect(notMine.status == 445, "게시글 삭제 권한이 없습니다.")

        // The author deletes it: gone from the feed and from the profile's posts.
        let deleted = try await author.call(Twin.RemovePostResponse.self, "delete post") {
            .removePost(access: $0, postID: moment._id)
        }
        #expect(deleted._id == moment._id)
        let (afterMe, afterDelete) = try await Twin.home(author)
        #expect(!afterDelete.data.contains { $0._id == moment._id })
        #expect(!afterMe.posts.contains(moment._id))
    }

    /// The profile bubble of a feed author → follow from the feed → the "팔로잉" tab (the feed filtered by the
    /// followed users' nicks) → the author edits nick and photo → the follower sees both at once on the feed,
    /// on the following list and in the following tab → unfollow.
    @Test func followProfilesAndProfileEdit() async throws {
        let client = try TwinClient()
        let (author, authorLogin, _) = try await Twin.newUser(client)
        let (fan, fanLogin, fanNick) = try await Twin.newUser(client)
        let moment = try await Twin.addMoment(author, text: "#산책 오늘의 산책길")

        // The bubble: GET /profile/{creator}.
        let bubble = try await fan.call(Twin.GetAnotherProfileResponse.self, "profile bubble") {
            .anotherGetProfile(accessToken: $0, userID: authorLogin._id)
        }
        #expect(bubble._id == authorLogin._id && bubble.posts == [moment._id] && bubble.followers.isEmpty)

        // "팔로우" on the author's cell (toggleFollowing true → follow).
        let follow = try await fan.call(Twin.FollowerStatusResponse.self, "follow") {
            .follow(accessToken: $0, userID: authorLogin._id)
        }
        #expect(follow.user == fanLogin._id && follow.following == authorLogin._id && follow.following_status)
        let (fanMe, _) = try await Twin.home(fan)
        #expect(fanMe.following.map(\._id) == [authorLogin._id], "the button shows 팔로잉")
        let bubbleAfter = try await fan.call(Twin.GetAnotherProfileResponse.self, "profile bubble after follow") {
            .anotherGetProfile(accessToken: $0, userID: authorLogin._id)
        }
        #expect(bubbleAfter.followers.map(\._id) == [fanLogin._id])
        let authorMe = try await author.call(Twin.GetProfileResponse.self, "author's page") {
            .getProfile(accessToken: $0)
        }
        #expect(authorMe.followers.map(\._id) == [fanLogin._id] && authorMe.followers.first?.nick == fanNick)

        // The following tab: my profile (followed nicks) + the feed with limit 10, filtered by nick.
        let following = try await Self.followingTab(fan)
        #expect(following.contains(moment._id))

        // The author edits the profile: a new nick and a photo (both required by the edit screen).
        let newNick = TestEnvironment.unique("bmNew")
        let put = try await author.require(
            try await author.requestPutProfile(nick: newNick, imageData: TestImages.png), "profile edit")
        #expect(put._id == authorLogin._id && put.nick == newNick && put.followers.map(\._id) == [fanLogin._id])
        let portrait = try await author.image(put.profile)
        #expect(portrait.status == 200 && portrait.body == TestImages.png)

        // The fan's next screens show the new nick and photo at once.
        let (fanMeAfter, fanFeed) = try await Twin.home(fan)
        #expect(fanMeAfter.following.first?.nick == newNick && fanMeAfter.following.first?.profile == put.profile)
        let shown = try #require(fanFeed.data.first { $0._id == moment._id })
        #expect(shown.creator.nick == newNick && shown.creator.profile == put.profile)
        #expect(try await Self.followingTab(fan).contains(moment._id), "the following tab matches by the new nick")

        // Unfollow from the feed button (toggleFollowing false → DELETE).
        let unfollow = try await fan.call(Twin.FollowerStatusResponse.self, "unfollow") {
            .unFollower(accessToken: $0, userID: authorLogin._id)
        }
        #expect(unfollow.user == fanLogin._id && unfollow.following == authorLogin._id && !unfollow.following_status)
        let (fanMeEnd, _) = try await Twin.home(fan)
        #expect(fanMeEnd.following.isEmpty)
        #expect(try await Self.followingTab(fan).isEmpty)
    }

    /// Ten minutes later every call answers 419: the interceptor renews (`GET /refresh` → `{token}`) and retries,
    /// also an upload. When the refresh token has expired too (418) the login screen comes up; logging in again
    /// (the stale token still in `Authorization`) works. Withdraw (`POST /withdraw`, a router case no screen
    /// calls) → the old token is refused on the next request.
    @Test func tokenRenewalLoginScreenAndWithdraw() async throws {
        let client = try TwinClient()
        let (member, login, nick) = try await Twin.newUser(client)

        try await member.letAccessTokenExpire()
        let me = try await member.call(Twin.GetProfileResponse.self, "my page after 10 minutes") {
            .getProfile(accessToken: $0)
        }
        #expect(me._id == login._id)
        #expect(await member.refreshStatuses == [200])

        // An upload with an expired token: 419 → renew → the same upload again, posted once.
        try await member.letAccessTokenExpire()
        let moment = try await Twin.addMoment(member, text: "#재시도 토큰이 만료된 뒤의 순간")
        #expect(await member.refreshStatuses == [200, 200])
        let mine = try await member.call(Twin.GetProfileResponse.self, "my page after the upload") {
            .getProfile(accessToken: $0)
        }
        #expect(mine.posts == [moment._id], "the retried upload made exactly one post")

        // Two weeks later: 419 → refresh 418 → the login screen.
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire()
        let expired = try await member.requestAPIFunction(Twin.GetProfileResponse.self) { .getProfile(accessToken: $0) }
        #expect(expired.status == 419)
        #expect(await member.refreshStatuses == [200, 200, 418])
        let (loginScreens, isVaild) = (await member.loginScreens, await member.isVaild)
        #expect(loginScreens == 1 && !isVaild, "LoginViewController is the root, backToRoot(false)")

        // Logging in again: `adapt` still puts the expired token in Authorization; login must not care.
        let again = try await member.login()
        #expect(again._id == login._id)
        let (home, _) = try await Twin.home(member)
        #expect(home.nick == nick && home.posts == [moment._id])

        // Withdraw: `Router.deleteAccount` (POST /withdraw, no body), then the old token on the next request.
        let withdrawn = try await member.call(Twin.LogOutResponse.self, "withdraw") { .deleteAccount(access: $0) }
        #expect(
            withdrawn._id == login._id && withdrawn.nick == nick && withdrawn.email == "\(nick)@bestmoment.example.com")
        let refused = try await member.requestAPIFunction(Twin.GetProfileResponse.self) { .getProfile(accessToken: $0) }
        #expect(refused.status == 401, "the withdrawn member's token on the next request")
        #expect(await member.refreshStatuses == [200, 200, 418], "401 is not retried")
    }

    /// FollowingViewController.getPost(next: "", limit: "10"): my profile's following nicks, the feed page, the
    /// rows whose creator nick is followed.
    static func followingTab(_ session: Twin.Session) async throws -> [String] {
        let (me, page) = try await Twin.home(session, limit: "10")
        let nicks = Set(me.following.map(\.nick))
        return page.data.filter { nicks.contains($0.creator.nick) }.map(\._id)
    }
}
