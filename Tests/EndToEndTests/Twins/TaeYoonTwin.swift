import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **TaeYoon17/lslpProject** (github.com/TaeYoon17/lslpProject, G0, Nov–Dec 2023): a Pinterest
/// clone. A *board* is a post of `product_id` `"Board"` (title = board name, `content` = its tags `"#a #b"`,
/// `content1…5` = pin id lists, always `""` in this version, one optional cover image); a *pin* is a post of
/// `product_id` `"Pin"` (title, `content` = tags, `content1` description, `content2` link, `content3` the board's
/// id, the photos). The profile tab reads my profile and photo, then my boards and my pins — the first page of
/// the `Board`/`Pin` feeds filtered by my id —, the discover tab searches pins by each board's tags
/// (`GET /post/hashtag`), the profile editor sends nick, phone, birthday and photo.
///
/// Network layer (`lslpProject/Services/Network+API/`): Alamofire `URLRequestConvertible` routers (`AuthRouter`,
/// `PostRouter`, `ProfileRouter`), JSON bodies through `JSONEncoding.default` (only the body is kept), queries as
/// `URLQueryItem`s mapped from a `[String: Any]` dictionary (so in its order), multipart forms built by the
/// routers (files first, named `"\(title)\(index).jpg"`, `image/jpeg`; text parts without a type; the profile
/// photo `fileName.jpg`). Sign-up and sign-in use `BaseInterceptor` (adds `Content-Type` and `Accept`
/// `application/json; charset=UTF-8` and `SesacKey`); everything else uses `AuthenticationInterceptor<
/// MyAuthenticator>`: `apply` adds `SesacKey` and the stored token as `Authorization`, and a **419** makes it
/// refresh (`GET /refresh` with `Refresh`, `Authorization`, through `BaseInterceptor`) → `{token}` → retry —
/// but Alamofire consults the retrier only for a failed request, and no call validates: only the
/// `responseDecodable` calls (profile, board/pin lists, hashtag search) fail on a 419 body; the uploads, the
/// delete (`responseString`) and the image loads (`response`) never retry.
///
/// Not in the app (router cases no screen calls): `POST /validation/email`, `POST /withdraw`,
/// `GET /profile/{id}` (built as a GET with a `{}` body, which URLSession refuses on iOS 13+). No likes, comments,
/// follows or payments. The sign-in screen logs in with the hard-coded `App.virtualEmail`/`App.virtualPW` ("바꿈 when
/// the service is used for real"); the twin logs in with the account it just made. Chat: none.
enum TaeYoonTwin {
    static let boardProductID = "Board"
    static let pinProductID = "Pin"

    // MARK: - Network models (TaeYoon: Services/Network+API/Model/**)

    // TaeYoon: Model/Auth/Response/SignInRespone.swift
    struct SignInRespone: Decodable, Sendable {
        let _id: String
        let accessToken: String
        let refreshToken: String

        enum CodingKeys: String, CodingKey {
            case accessToken = "token"
            case refreshToken = "refreshToken"
            case _id
        }
    }

    // TaeYoon: Model/Auth/Response/SingUpResponse.swift
    struct SignUpResponse: Decodable, Sendable {
        let _id: String
        let email: String
        let nick: String
    }

    // TaeYoon: Model/Auth/Response/TokenResponse.swift
    struct TokenResponse: Decodable, Sendable {
        let token: String
    }

    // TaeYoon: Model/UserInfo/User.swift — `profile` is **required**.
    struct User: Decodable, Sendable, Hashable {
        var _id: String
        var nick: String
        var profile: String
    }

    // TaeYoon: Model/Comment/Comment.swift
    struct Comment: Decodable, Sendable, Hashable {
        var _id: String
        var content: String
        var time: String
        var creator: User?
    }

    // TaeYoon: Model/Comment/FollowResponse.swift (no route uses it in this version)
    struct FollowResponse: Decodable, Sendable {
        var user: String
        var following: String
        var following_status: Bool
    }

    // TaeYoon: Model/Post/Post.swift — what the routers turn into a multipart form.
    struct Post: Sendable {
        var title: String?
        var product_id: String?
        var content: String?
        var file: [[UInt8]]?
        var content1: String?
        var content2: String?
        var content3: String?
        var content4: String?
        var content5: String?
    }

    // TaeYoon: Model/Post/PostCheckResponse.swift — every list (boards, pins, hashtag search).
    struct PostCheckResponse: Decodable, Sendable {
        var data: [CheckData]
        var next_cursor: String

        struct CheckData: Decodable, Sendable {
            var likes: [String]
            var image: [String]
            var hashTags: [String]
            var comments: [Comment]
            var _id: String
            var creator: User
            var time: String
            var title: String?
            var content: String?
            var content1: String?
            var content2: String?
            var content3: String?
            var content4: String?
            var content5: String?
            var product_id: String?
        }
    }

    // TaeYoon: Model/Profile/ProfileEditBody.swift
    struct ProfileEditBody: Sendable {
        var nick: String?
        var phoneNum: String?
        var birthDay: String?
        var profile: [UInt8]?
    }

    // TaeYoon: Model/Profile/ProfileResponse.swift — `followers`/`following` are `[User]` (profile required).
    struct ProfileResponse: Decodable, Sendable {
        var posts: [String]
        var followers: [User]
        var following: [User]
        var _id: String
        var email: String
        var nick: String?
        var phoneNum: String?
        var birthDay: String?
        var profile: String?
    }

    // TaeYoon: Model/UserInfo/UserDetail.swift
    struct UserDetail: Sendable {
        var email: String
        var password: String
        var nick: String?
        var phoneNum: String?
        var birthDay: String?
    }

    /// The test's looser read of a list, where the app's `User` cannot decode a creator without `profile`.
    struct LoosePostCheckResponse: Decodable, Sendable {
        struct LooseUser: Decodable, Sendable {
            var _id: String
            var nick: String
            var profile: String?
        }

        struct LooseComment: Decodable, Sendable {
            var _id: String
            var creator: LooseUser?
        }

        struct Element: Decodable, Sendable {
            var _id: String
            var creator: LooseUser
            var comments: [LooseComment]
            var image: [String]
            var hashTags: [String]
            var title: String?
            var content: String?
            var content1: String?
            var content2: String?
            var content3: String?
            var content4: String?
            var content5: String?
            var product_id: String?
        }

        var data: [Element]
        var next_cursor: String
    }

    // MARK: - App models (TaeYoon: Model/Post/BoardPost.swift, Model/Post/PinPost.swift, Helpers/Extensions/StringExtensions.swift)

    /// `hashTagPost()`: `["a", "b"]` → `"#a #b"`.
    static func hashTagPost(_ tags: [String]) -> String {
        tags.map { "#\($0)" }.joined(separator: " ")
    }

    struct Board: Sendable, Hashable {
        let productId = "Board"
        var id = UUID().uuidString
        var name = ""
        var hashTags: [String] = []
        var data: [UInt8]?
        var pins: [[String]] = Array(repeating: [], count: 5)

        /// `Board.getBy(checkData:)`: name = title, tags = `content` split at **`-`** with `#` removed (the
        /// app writes them separated by spaces), the cover = the first image, loaded with `try?`.
        static func getBy(checkData data: PostCheckResponse.CheckData, session: Session) async throws -> Board {
            var board = Board()
            board.id = data._id
            board.name = data.title ?? ""
            if let content1 = data.content {
                board.hashTags = content1.split(separator: "-").map {
                    String($0).replacingOccurrences(of: "#", with: "")
                }
            }
            if let imagePath = data.image.first {
                board.data = try? await session.getImageData(imagePath: imagePath)
            }
            return board
        }
    }

    struct BoardPost: Sendable {
        var id = UUID().uuidString
        let productId = "Board"
        var name = ""
        var hashTags = ""
        var data: [UInt8]?
        var pins = Array(repeating: "", count: 5)

        init(board: Board) {
            name = board.name
            id = board.id
            hashTags = TaeYoonTwin.hashTagPost(board.hashTags)
            data = board.data
            pins = board.pins.compactMap { $0.joined(separator: "#") }
        }

        var get: Post {
            var post = Post(
                title: name, product_id: productId, content: hashTags,
                content1: pins[0], content2: pins[1], content3: pins[2], content4: pins[3], content5: pins[4])
            if let data { post.file = [data] }
            return post
        }
    }

    struct PinPost: Sendable {
        var productId = "Pin"
        var title = ""
        var content: String?
        var link: String?
        var imageDatas: [[UInt8]] = []
        var board = ""
        var hashTags = ""

        var get: Post {
            Post(
                title: title, product_id: productId, content: hashTags, file: imageDatas, content1: content,
                content2: link, content3: board)
        }
    }

    struct Pin: Sendable {
        var product_id = "Pin"
        var id: String
        var likes: [String]
        var images: [[UInt8]]
        var hashTags: [String]
        var comments: [Comment]
        var creator: User
        var boardID: String
        var content: String
        var link: String

        /// `Pin(response:)`: every image loaded (`getImageData`), `content1` → description, `content2` → link,
        /// `content3` → board id.
        init(response: PostCheckResponse.CheckData, session: Session) async throws {
            var images: [[UInt8]] = []
            for imagePath in response.image {
                images.append(try await session.getImageData(imagePath: imagePath))
            }
            self.images = images
            id = response._id
            likes = response.likes
            hashTags = response.hashTags
            comments = response.comments
            creator = response.creator
            boardID = response.content3 ?? ""
            content = response.content1 ?? ""
            link = response.content2 ?? ""
        }
    }

    // MARK: - Routers (TaeYoon: Services/Network+API/Router/*.swift)

    /// `URLRequest.addValue`: a second value joins the first with a comma.
    static func addValue(_ value: String, _ name: String, to headers: inout [(String, String)]) {
        if let index = headers.firstIndex(where: { $0.0.lowercased() == name.lowercased() }) {
            headers[index].1 += "," + value
        } else {
            headers.append((name, value))
        }
    }

    /// `JSONEncoding.default`: `JSONSerialization` of the parameters (the router keeps only `httpBody`).
    static func jsonBody(_ parameters: [String: String]) throws -> Data {
        try JSONSerialization.data(withJSONObject: parameters)
    }

    // TaeYoon: Router/AuthRouter.swift
    enum AuthRouter: Sendable {
        case signUp(user: UserDetail)
        case signIn(email: String, pw: String)
        case emailValidation(email: String)
        case refreshToken
        case withdraw

        var endPoint: String {
            switch self {
            case .signIn: "/login"
            case .signUp: "/join"
            case .emailValidation: "/validation/email"
            case .refreshToken: "/refresh"
            case .withdraw: "/withdraw"
            }
        }

        var method: String {
            switch self {
            case .emailValidation, .signUp, .signIn, .withdraw: "POST"
            case .refreshToken: "GET"
            }
        }

        func headers(secretKey: String, accessToken: String, refreshToken: String) -> [(String, String)] {
            switch self {
            case .withdraw: [("Authorization", accessToken), ("SesacKey", secretKey)]
            case .refreshToken: [("Refresh", refreshToken), ("Authorization", accessToken)]
            case .emailValidation, .signIn, .signUp: []
            }
        }

        var parameters: [String: String] {
            var params: [String: String] = [:]
            switch self {
            case .signUp(let user):
                params["email"] = user.email
                params["password"] = user.password
                params["nick"] = user.nick
                if let phoneNum = user.phoneNum { params["phoneNum"] = phoneNum }
                if let birthDay = user.birthDay { params["birthDay"] = birthDay }
            case .emailValidation(let email):
                params["email"] = email
            case .signIn(let email, let pw):
                params["email"] = email
                params["password"] = pw
            default:
                break
            }
            return params
        }

        func asURLRequest(secretKey: String, accessToken: String, refreshToken: String) throws -> TwinRequest {
            var request = TwinRequest(
                method, endPoint,
                headers: headers(secretKey: secretKey, accessToken: accessToken, refreshToken: refreshToken))
            if method != "GET" { request.body = try TaeYoonTwin.jsonBody(parameters) }
            return request
        }
    }

    // TaeYoon: Router/PostRouter.swift
    enum PostRouter: Sendable {
        case create(post: Post)
        case read(next: String?, limit: Int?, productId: String?)
        case update(id: String, post: Post)
        case delete(id: String)
        case hashTag(name: String, next: String?, limit: Int?, productId: String?)

        var endPoint: String {
            switch self {
            case .create: "/post"
            case .delete(let id): "/post/\(id)"
            case .read: "/post"
            case .update(let id, _): "/post/\(id)"
            case .hashTag: "/post/hashtag"
            }
        }

        var method: String {
            switch self {
            case .create: "POST"
            case .delete: "DELETE"
            case .read, .hashTag: "GET"
            case .update: "PUT"
            }
        }

        var headers: [(String, String)] {
            switch self {
            case .create, .update: [("Content-Type", "multipart/form-data")]
            case .delete, .read, .hashTag: []
            }
        }

        var parameters: [String: String] {
            var params: [String: String] = [:]
            switch self {
            case .read(let next, let limit, let productId):
                if let limit { params["limit"] = "\(limit)" }
                if let next { params["next"] = next }
                if let productId { params["product_id"] = productId }
            case .hashTag(let name, let next, let limit, let productId):
                if let limit { params["limit"] = "\(limit)" }
                if let next { params["next"] = next }
                if let productId { params["product_id"] = productId }
                params["hashTag"] = name
            default:
                break
            }
            return params
        }

        /// Query items mapped from the parameter dictionary (its order), appended with `URL.append(queryItems:)`.
        func asURLRequest() -> TwinRequest {
            var request = TwinRequest(method, endPoint, headers: headers)
            switch self {
            case .read, .hashTag:
                request.query = TwinQuery.urlComponents(parameters.map { ($0.key, Optional($0.value)) })
            default:
                break
            }
            return request
        }

        /// `multipartFormData`: one `file` part per image (`"\(title ?? "")\(idx).jpg"`, `image/jpeg`), then the
        /// non-nil text parts in the order title, product_id, content, content1…5, without a type. When
        /// `post.file` is nil the `guard … else { break }` leaves the switch before the text parts: the form is
        /// empty (Alamofire then sends an empty body).
        var multipartFormData: TwinMultipart {
            var form = TwinMultipart()
            switch self {
            case .create(let post), .update(_, let post):
                guard let file = post.file else { break }
                for (idx, data) in file.enumerated() {
                    form.file("file", filename: "\(post.title ?? "")\(idx).jpg", mimeType: "image/jpeg", bytes: data)
                }
                let nameArr = [
                    "title", "product_id", "content", "content1", "content2", "content3", "content4", "content5",
                ]
                let postArr: [String?] = [
                    post.title, post.product_id, post.content, post.content1, post.content2, post.content3,
                    post.content4, post.content5,
                ]
                for (name, value) in zip(nameArr, postArr) {
                    if let value { form.text(name, value) }
                }
            default:
                break
            }
            return form
        }
    }

    // TaeYoon: Router/ProfileRouter.swift
    enum ProfileRouter: Sendable {
        case check
        case edit(profile: ProfileEditBody)

        var endPoint: String { "/profile/me" }
        var method: String {
            switch self {
            case .check: "GET"
            case .edit: "PUT"
            }
        }

        var headers: [(String, String)] {
            switch self {
            case .check: []
            case .edit: [("Content-Type", "multipart/form-data")]
            }
        }

        func asURLRequest() -> TwinRequest {
            TwinRequest(method, endPoint, headers: headers)
        }

        /// `nick`, `birthDay`, `phoneNum` (the non-nil ones, no type), then `profile` as `fileName.jpg`, `image/jpeg`.
        var multipartFormData: TwinMultipart {
            var form = TwinMultipart()
            if case .edit(let profile) = self {
                let nameArr = ["nick", "birthDay", "phoneNum"]
                let profileArr: [String?] = [profile.nick, profile.birthDay, profile.phoneNum]
                for (name, value) in zip(nameArr, profileArr) {
                    if let value { form.text(name, value) }
                }
                if let profileData = profile.profile {
                    form.file("profile", filename: "fileName.jpg", mimeType: "image/jpeg", bytes: profileData)
                }
            }
            return form
        }
    }

    /// A result as the app's async functions give it.
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
        var description: String { "TaeYoon step failed: \(step)" }
    }

    // MARK: - NetworkService + interceptors + UserDefaults (TaeYoon: NetworkService/*.swift, Interceptor/*.swift,
    //         Helpers/Library/UserDefaults+State.swift, AppCores/AppManager.swift)

    actor Session {
        let client: TwinClient
        // UserDefaults (@DefaultsState)
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var userID = ""
        private(set) var userBoards: [Board] = []
        private(set) var userHashTags: [String] = []
        // Test-side bookkeeping.
        private(set) var email = ""
        private(set) var password = ""
        private(set) var refreshStatuses: [Int] = []
        private(set) var lastStatus = 0
        private(set) var lastBody = ""

        init(client: TwinClient) {
            self.client = client
        }

        private func record(_ reply: GatewayClient.Reply) -> GatewayClient.Reply {
            lastStatus = reply.status
            lastBody = reply.text
            return reply
        }

        // TaeYoon: Interceptor/BaseInterceptor.swift — `addValue` of both JSON types and `SesacKey`.
        private func baseAdapt(_ request: TwinRequest) -> TwinRequest {
            var request = request
            TaeYoonTwin.addValue("application/json; charset=UTF-8", "Content-Type", to: &request.headers)
            TaeYoonTwin.addValue("application/json; charset=UTF-8", "Accept", to: &request.headers)
            TaeYoonTwin.addValue(client.apiKey, "SesacKey", to: &request.headers)
            return request
        }

        // TaeYoon: Interceptor/MyAuthenticator.swift `apply` (AuthCredential.requiresRefresh is always false).
        private func apply(_ request: TwinRequest) -> TwinRequest {
            var request = request
            TaeYoonTwin.addValue(client.apiKey, "SesacKey", to: &request.headers)
            TaeYoonTwin.addValue(accessToken, "Authorization", to: &request.headers)
            return request
        }

        /// `AF.request(router, interceptor: baseAuthenticator).responseDecodable(…)`: a 419 body never decodes as
        /// the app's types, so the request fails, `didRequest` sees 419 and the interceptor refreshes and
        /// retries it (rebuilt and adapted with the new token).
        private func decodableRequest(_ request: TwinRequest) async throws -> GatewayClient.Reply {
            let first = record(try await client.send(apply(request)))
            guard first.status == 419 else { return first }
            guard try await refresh() else { return first }
            return record(try await client.send(apply(request)))
        }

        /// `AF.request(…).responseString` / `.response` / `AF.upload(…).responseString`: no validation, so no
        /// failure and no retry — a 419 is delivered to the caller like any answer.
        private func unretried(_ request: TwinRequest) async throws -> GatewayClient.Reply {
            record(try await client.send(apply(request)))
        }

        // TaeYoon: MyAuthenticator.refresh — `session.request(AuthRouter.refreshToken, interceptor: BaseInterceptor())`
        // → `TokenResponse` → stored; any failure fails the retried request.
        private func refresh() async throws -> Bool {
            let request = baseAdapt(
                try AuthRouter.refreshToken.asURLRequest(
                    secretKey: client.apiKey, accessToken: accessToken,
                    refreshToken: refreshToken))
            let reply = try await client.send(request)
            refreshStatuses.append(reply.status)
            if (200..<300).contains(reply.status) {
                accessToken = try client.decode(TokenResponse.self, from: reply).token
                return true
            }
            return false
        }

        /// `responseDecodable` without `validate`: anything that decodes is a success; a 2xx that does not
        /// decode fails the test; anything else is the failure the app prints.
        private func decoded<T: Decodable & Sendable>(_ reply: GatewayClient.Reply, _ type: T.Type) throws -> Outcome<T>
        {
            if (200..<300).contains(reply.status) { return .success(try client.decode(type, from: reply)) }
            if let value = try? JSONDecoder().decode(type, from: Data(reply.body)) { return .success(value) }
            return .failure(status: reply.status, body: reply.text)
        }

        // TaeYoon: NewworkService+Auth.swift `signUp(user:)` — BaseInterceptor, validate(200...299).
        func signUp(user: UserDetail) async throws -> Outcome<SignUpResponse> {
            let request = baseAdapt(
                try AuthRouter.signUp(user: user).asURLRequest(
                    secretKey: client.apiKey, accessToken: accessToken,
                    refreshToken: refreshToken))
            let reply = record(try await client.send(request))
            guard (200...299).contains(reply.status) else { return .failure(status: reply.status, body: reply.text) }
            email = user.email
            password = user.password
            return .success(try client.decode(SignUpResponse.self, from: reply))
        }

        // TaeYoon: NewworkService+Auth.swift `signIn(email:pw:)` + App.Manager.signIn — stores both tokens (not
        // the user id: ProfileVM stores it from the profile).
        func signIn() async throws -> Outcome<SignInRespone> {
            let request = baseAdapt(
                try AuthRouter.signIn(email: email, pw: password).asURLRequest(
                    secretKey: client.apiKey, accessToken: accessToken,
                    refreshToken: refreshToken))
            let reply = record(try await client.send(request))
            guard (200...299).contains(reply.status) else { return .failure(status: reply.status, body: reply.text) }
            let response = try client.decode(SignInRespone.self, from: reply)
            refreshToken = response.refreshToken
            accessToken = response.accessToken
            return .success(response)
        }

        // TaeYoon: NetworkService+Profile.swift `getMyProfile()`
        func getMyProfile() async throws -> Outcome<ProfileResponse> {
            try decoded(try await decodableRequest(ProfileRouter.check.asURLRequest()), ProfileResponse.self)
        }

        // TaeYoon: NetworkService+Profile.swift `editProfile(nick:phoneNum:birthDay:profile:)` — `responseString`.
        func editProfile(nick: String, phoneNum: String? = nil, birthDay: String? = nil, profile: [UInt8]? = nil)
            async throws -> GatewayClient.Reply
        {
            let router = ProfileRouter.edit(
                profile: ProfileEditBody(nick: nick, phoneNum: phoneNum, birthDay: birthDay, profile: profile))
            return try await upload(router.asURLRequest(), router.multipartFormData)
        }

        /// A list read through the interceptor (`getUserBoard`, `getUserPost`, `getPost(router:)`): the raw answer,
        /// decoded by the caller (`TaeYoonTwin.page`).
        func readPosts(_ router: PostRouter) async throws -> GatewayClient.Reply {
            try await decodableRequest(router.asURLRequest())
        }

        // TaeYoon: NetworkService+Board.swift `post(boardPost:)` — `responseString`: "Success" whatever the status.
        func post(boardPost: BoardPost) async throws -> GatewayClient.Reply {
            let router = PostRouter.create(post: boardPost.get)
            return try await upload(router.asURLRequest(), router.multipartFormData)
        }

        // TaeYoon: NetworkService+Board.swift `updateBoard(id:boardPost:)`
        func updateBoard(id: String, boardPost: BoardPost) async throws -> GatewayClient.Reply {
            let router = PostRouter.update(id: id, post: boardPost.get)
            return try await upload(router.asURLRequest(), router.multipartFormData)
        }

        // TaeYoon: NetworkService+Board.swift `deleteBoard(boardID:)` — `responseString`.
        func deleteBoard(boardID: String) async throws -> GatewayClient.Reply {
            try await unretried(PostRouter.delete(id: boardID).asURLRequest())
        }

        // TaeYoon: NetworkService+Pin.swift `post(pinPost:)`
        func post(pinPost: PinPost) async throws -> GatewayClient.Reply {
            let router = PostRouter.create(post: pinPost.get)
            return try await upload(router.asURLRequest(), router.multipartFormData)
        }

        /// `AF.upload(multipartFormData:with:interceptor:)`: the boundary's type replaces the router's bare
        /// `multipart/form-data`; an empty form is an empty body.
        private func upload(_ request: TwinRequest, _ form: TwinMultipart) async throws -> GatewayClient.Reply {
            var request = request
            request.headers =
                request.headers.filter { $0.0.lowercased() != "content-type" } + [("Content-Type", form.contentType)]
            request.body = form.parts.isEmpty ? Data() : form.encoded()
            return try await unretried(request)
        }

        // TaeYoon: NetworkService.swift `getImageData(imagePath:)` — `"\(App.baseURL)/\(imagePath)"`, `.response`:
        // the body whatever the status.
        func getImageData(imagePath: String) async throws -> [UInt8] {
            try await unretried(TwinRequest("GET", "/\(imagePath)")).body
        }

        /// ProfileVM: `self.userID = response._id`.
        func setUserID(_ id: String) {
            userID = id
        }

        // TaeYoon: App.Manager.updateBoards(boards:) — the boards and the set of their tags.
        func updateBoards(boards: [Board]) {
            userBoards = boards
            userHashTags = Array(Set(boards.flatMap(\.hashTags)))
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

        // MARK: Time passing (test-side only, as in AppSession)

        /// The access token expires: replaced by a token of the same session that expired 100 s ago.
        func letAccessTokenExpire(userId: String) async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userId)
        }

        /// The refresh token's lifetime passes (its session's expiry moves into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    // MARK: - Screens

    /// One page of a list as the app decodes it, and the test's looser read of the same bytes.
    struct Page: Sendable {
        /// The app's `PostCheckResponse`, or nil when it could not decode the page (the app then stops: the
        /// continuation throws, ProfileVM prints the error, nothing of the page is shown).
        var app: PostCheckResponse?
        var loose: LoosePostCheckResponse
        var elements: [Data]
    }

    /// `responseDecodable(of: PostCheckResponse.self)` on a page. When it fails because a user on the page has no
    /// `profile` (a creator, or a comment's creator) — the server omits the key for a user who never set a
    /// photo, as LSLP did — that is the app's defect (`User.profile: String`); anything else is a real failure.
    static func page(
        _ client: TwinClient, _ reply: GatewayClient.Reply, _ step: String,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> Page {
        #expect(
            reply.status == 200, "\(step): \(reply.status) \(reply.text.prefix(400))", sourceLocation: sourceLocation)
        let loose = try client.decode(LoosePostCheckResponse.self, from: reply)
        let object = try #require(try JSONSerialization.jsonObject(with: Data(reply.body)) as? [String: Any])
        let items = try #require(object["data"] as? [Any])
        let elements = try items.map { try JSONSerialization.data(withJSONObject: $0) }
        do {
            return Page(app: try client.decode(PostCheckResponse.self, from: reply), loose: loose, elements: elements)
        } catch {
            let profileless = loose.data.contains { post in
                post.creator.profile == nil
                    || post.comments.contains { $0.creator != nil && $0.creator?.profile == nil }
            }
            guard profileless else { throw error }
            withKnownIssue(
                "TaeYoon defect: Model/UserInfo/User.swift declares `profile: String`, so a page holding any user without a profile photo (the key is absent, as LSLP sent it) fails to decode as PostCheckResponse (\(step))",
                sourceLocation: sourceLocation
            ) {
                throw error
            }
            return Page(app: nil, loose: loose, elements: elements)
        }
    }

    /// My elements of a page decoded one by one with the app's `CheckData` (they must decode when I have a photo).
    static func mine(_ client: TwinClient, _ page: Page, userID: String) throws -> [PostCheckResponse.CheckData] {
        var result: [PostCheckResponse.CheckData] = []
        for (element, loose) in zip(page.elements, page.loose.data) where loose.creator._id == userID {
            result.append(try JSONDecoder().decode(PostCheckResponse.CheckData.self, from: element))
        }
        return result
    }

    struct ProfileScreen: Sendable {
        var profile: ProfileResponse
        var photo: [UInt8]?
        /// Nil when the app could not decode the board page (then it shows no boards and loads no pins).
        var boards: [Board]?
        var pins: [Pin]?
        var nextPin: String?
        /// The test's looser read of my boards and pins on the first pages.
        var looseBoards: [LoosePostCheckResponse.Element]
        var loosePins: [LoosePostCheckResponse.Element]
    }

    /// ProfileVM.profileResponse(): my profile (+ photo), `userID` stored, `getUserBoard()` (first `Board` page
    /// filtered by my id, each cover loaded), `getUserPins(next: nil)` (first `Pin` page filtered by my id, each
    /// pin's photos loaded), `App.Manager.updateBoards`.
    static func profileScreen(_ session: Session, _ client: TwinClient, nextPin: String? = nil) async throws
        -> ProfileScreen
    {
        let profile = try await session.require(try await session.getMyProfile(), "my profile")
        var photo: [UInt8]?
        if let path = profile.profile { photo = try await session.getImageData(imagePath: path) }
        await session.setUserID(profile._id)
        let boardPage = try page(
            client, try await session.readPosts(.read(next: nil, limit: nil, productId: boardProductID)), "getUserBoard"
        )
        var screen = ProfileScreen(
            profile: profile, photo: photo, boards: nil, pins: nil, nextPin: nil,
            looseBoards: boardPage.loose.data.filter { $0.creator._id == profile._id }, loosePins: [])
        guard let boardList = boardPage.app else { return screen }
        var boards: [Board] = []
        for raw in boardList.data where raw.creator._id == profile._id {
            boards.append(try await Board.getBy(checkData: raw, session: session))
        }
        let pinPage = try page(
            client, try await session.readPosts(.read(next: nextPin, limit: nil, productId: pinProductID)),
            "getUserPins")
        screen.loosePins = pinPage.loose.data.filter { $0.creator._id == profile._id }
        guard let pinList = pinPage.app else { return screen }
        var pins: [Pin] = []
        for raw in pinList.data where raw.creator._id == profile._id {
            pins.append(try await Pin(response: raw, session: session))
        }
        await session.updateBoards(boards: boards)
        screen.boards = boards
        screen.pins = pins
        screen.nextPin = pinList.next_cursor
        return screen
    }

    /// Onboarding → sign-up pages (email, password, nick; the options page's phone and birthday are not sent) →
    /// sign-in.
    static func newUser(_ client: TwinClient) async throws -> (Session, SignInRespone, nick: String) {
        let session = Session(client: client)
        let nick = TestEnvironment.unique("ty")
        let email = "\(nick)@lslp.example.com"
        let joined = try await session.require(
            try await session.signUp(user: UserDetail(email: email, password: "pinterest1234", nick: nick)), "sign-up")
        #expect(joined.nick == nick && joined.email == email)
        let signedIn = try await session.require(try await session.signIn(), "sign-in")
        #expect(signedIn._id == joined._id)
        return (session, signedIn, nick)
    }
}

/// Serialized: the `Board` and `Pin` feeds are shared, and the first journey has a board whose creator has no photo
/// for a moment, which would make the other journeys' first pages undecodable for the app.
@Suite("TaeYoon lslpProject twin", .serialized)
struct TaeYoonTwinTests {
    typealias Twin = TaeYoonTwin

    /// A new member makes a board before choosing a profile photo: the app cannot read its own board (client
    /// defect); after the profile editor (same nick, phone, birthday, photo) it can. A board without a cover is
    /// never created (client defect: empty form). Edit (name, tags, the cover re-sent) and delete.
    @Test func boardsBeforeAndAfterAProfilePhoto() async throws {
        let client = try TwinClient()
        let (member, signedIn, nick) = try await Twin.newUser(client)

        // The profile tab right after sign-in: profile, no photo, no boards.
        let empty = try await Twin.profileScreen(member, client)
        #expect(empty.profile._id == signedIn._id && empty.profile.nick == nick && empty.profile.profile == nil)
        #expect(empty.profile.posts.isEmpty && empty.profile.followers.isEmpty && empty.profile.following.isEmpty)
        #expect(empty.looseBoards.isEmpty)

        // A board with a cover, made before any profile photo.
        let tag = TestEnvironment.unique("고양이")
        var cats = Twin.Board()
        cats.name = "우리집 고양이 \(TestEnvironment.unique())"
        cats.hashTags = [tag]
        cats.data = TestImages.png
        let catsName = cats.name
        let created = try await member.post(boardPost: Twin.BoardPost(board: cats))
        #expect(created.status == 200, "\(created.text)")

        // The profile tab again: my own board on the page has a creator without `profile`.
        let before = try await Twin.profileScreen(member, client)
        let mine = try #require(before.looseBoards.first { $0.title == catsName })
        #expect(mine.creator.profile == nil, "a user who never set a photo has no `profile` key")
        #expect(mine.product_id == Twin.boardProductID && mine.content == "#\(tag)" && mine.hashTags == [tag])
        #expect(mine.image.count == 1)
        withKnownIssue(
            "TaeYoon defect: the profile tab shows no boards until the member has a profile photo (User.profile required)"
        ) {
            #expect(before.boards?.contains { $0.id == mine._id } == true)
        }

        // The profile editor: the nick is sent unchanged (vm.user.nick), phone, birthday (yyyyMMdd), photo.
        let edit = try await member.editProfile(
            nick: nick, phoneNum: "01012345678", birthDay: "19990518", profile: TestImages.png)
        #expect(edit.status == 200, "\(edit.text)")
        let after = try await Twin.profileScreen(member, client)
        #expect(
            after.profile.nick == nick && after.profile.phoneNum == "01012345678"
                && after.profile.birthDay == "19990518")
        let photoPath = try #require(after.profile.profile)
        #expect(after.photo == TestImages.png)
        let boardPage = try Twin.page(
            client, try await member.readPosts(.read(next: nil, limit: nil, productId: Twin.boardProductID)),
            "boards after photo")
        let myBoards = try Twin.mine(client, boardPage, userID: signedIn._id)
        let appBoard = try #require(
            myBoards.first { $0._id == mine._id }, "my board decodes with the app's CheckData now")
        #expect(appBoard.creator.profile == photoPath && appBoard.creator.nick == nick)
        if let boards = after.boards {
            let shown = try #require(boards.first { $0.id == mine._id })
            #expect(shown.name == catsName && shown.hashTags == [tag] && shown.data == TestImages.png)
        }

        // A second board without a cover: the router's form is empty, the server refuses it, the app says "Success".
        var coverless = Twin.Board()
        coverless.name = "표지 없는 보드 \(TestEnvironment.unique())"
        coverless.hashTags = [tag]
        let coverlessName = coverless.name
        let refused = try await member.post(boardPost: Twin.BoardPost(board: coverless))
        #expect(refused.status == 400, "an empty form has no product_id: \(refused.text)")
        let afterCoverless = try await Twin.profileScreen(member, client)
        withKnownIssue(
            "TaeYoon defect: PostRouter.multipartFormData leaves the switch (`guard let file = post.file else {break}`) before the text parts, so a board without a cover is sent as an empty form and silently lost"
        ) {
            #expect(afterCoverless.looseBoards.contains { $0.title == coverlessName })
        }

        // Edit the board (BoardEditVM): a new name and tags; the cover the app loaded is sent again.
        var edited = Twin.Board()
        edited.id = mine._id
        edited.name = "고양이 사진첩 \(TestEnvironment.unique())"
        let newTag = TestEnvironment.unique("냥스타그램")
        edited.hashTags = [newTag]
        edited.data = try await member.getImageData(imagePath: try #require(mine.image.first))
        #expect(edited.data == TestImages.png)
        let update = try await member.updateBoard(id: mine._id, boardPost: Twin.BoardPost(board: edited))
        #expect(update.status == 200, "\(update.text)")
        let afterEdit = try await Twin.profileScreen(member, client)
        let updated = try #require(afterEdit.looseBoards.first { $0._id == mine._id })
        #expect(updated.title == edited.name && updated.content == "#\(newTag)" && updated.hashTags == [newTag])
        #expect(updated.image.count == 1 && updated.image != mine.image, "the re-sent cover replaces the old file")

        // Delete it (BoardEditVM.delete, `responseString`).
        let deleted = try await member.deleteBoard(boardID: mine._id)
        #expect(deleted.status == 200, "\(deleted.text)")
        let afterDelete = try await Twin.profileScreen(member, client)
        #expect(!afterDelete.looseBoards.contains { $0._id == mine._id })
        #expect(!afterDelete.profile.posts.contains(mine._id))
    }

    /// A member with a photo: a board with a tag → the profile tab stores it → a pin with two photos, tags, a
    /// description, a link and the board's id → my pins (photos loaded) → the discover tab finds the pin by the
    /// board's tag (`GET /post/hashtag`).
    @Test func pinsAndDiscoverByHashtag() async throws {
        let client = try TwinClient()
        let (member, signedIn, nick) = try await Twin.newUser(client)
        let edit = try await member.editProfile(nick: nick, profile: TestImages.png)
        #expect(edit.status == 200, "\(edit.text)")

        let tag = TestEnvironment.unique("노을")
        var board = Twin.Board()
        board.name = "노을 모음"
        board.hashTags = [tag]
        board.data = TestImages.png
        #expect(try await member.post(boardPost: Twin.BoardPost(board: board)).status == 200)
        let screen = try await Twin.profileScreen(member, client)
        let boards = try #require(screen.boards, "the profile tab shows my boards")
        let stored = try #require(boards.first { $0.name == "노을 모음" })
        #expect(stored.hashTags == [tag])
        #expect(await member.userBoards.map(\.id).contains(stored.id))

        // CreatingPinInfoVM.upload: title, description, link, the board, tags; photos named "<title><index>.jpg".
        var pinPost = Twin.PinPost()
        pinPost.title = "한강 노을 \(TestEnvironment.unique())"
        pinPost.content = "퇴근길에 본 한강의 노을"
        pinPost.link = "https://example.com/hangang?view=sunset&lang=ko"
        pinPost.board = stored.id
        pinPost.hashTags = Twin.hashTagPost([tag, "한강"])
        pinPost.imageDatas = [TestImages.png, TestImages.png]
        let posted = try await member.post(pinPost: pinPost)
        #expect(posted.status == 200, "\(posted.text)")

        // The profile tab: my pins with their photos.
        let withPin = try await Twin.profileScreen(member, client)
        let pins = try #require(withPin.pins, "the profile tab shows my pins")
        let description = pinPost.content
        let pin = try #require(pins.first { $0.content == description })
        #expect(pin.link == pinPost.link && pin.boardID == stored.id && pin.hashTags == [tag, "한강"])
        #expect(pin.images == [TestImages.png, TestImages.png])
        #expect(pin.creator._id == signedIn._id && pin.creator.nick == nick)

        // The discover tab: each stored board's tags searched among pins.
        var found: [Twin.Pin] = []
        for board in await member.userBoards {
            for hashTag in board.hashTags {
                let reply = try await member.readPosts(
                    .hashTag(name: hashTag, next: nil, limit: nil, productId: Twin.pinProductID))
                #expect(reply.status == 200, "\(reply.text)")
                let result = try client.decode(Twin.PostCheckResponse.self, from: reply)
                #expect(result.next_cursor == "0")
                for raw in result.data {
                    found.append(try await Twin.Pin(response: raw, session: member))
                }
            }
        }
        #expect(found.map(\.id) == [pin.id])
        #expect(found.first?.images == [TestImages.png, TestImages.png])

        // ProfileVM.userPin(): more pages while nextPin != "0" (the Pin feed is shared by every journey).
        var next = withPin.nextPin
        var pages = 1
        while let cursor = next, cursor != "0", pages < 1_000 {
            let reply = try await member.readPosts(.read(next: cursor, limit: nil, productId: Twin.pinProductID))
            let page = try Twin.page(client, reply, "pins page \(pages + 1)")
            #expect(!page.loose.data.contains { $0._id == pin.id }, "no pin repeated across pages")
            next = page.loose.next_cursor
            pages += 1
        }
        #expect(next == "0")
    }

    /// Ten minutes later: the profile (`responseDecodable`) gets 419 → `GET /refresh` (with the JSON
    /// `Content-Type` of BaseInterceptor) → `{token}` → retry. An upload with the expired token is answered 419
    /// and never retried (`responseString`). Two weeks later the refresh is 418 and the call fails.
    @Test func tokenRenewal() async throws {
        let client = try TwinClient()
        let (member, signedIn, nick) = try await Twin.newUser(client)
        #expect(try await member.editProfile(nick: nick, profile: TestImages.png).status == 200)
        var board = Twin.Board()
        board.name = "여행 \(TestEnvironment.unique())"
        board.hashTags = [TestEnvironment.unique("여행")]
        board.data = TestImages.png
        #expect(try await member.post(boardPost: Twin.BoardPost(board: board)).status == 200)
        let boardName = board.name
        let before = try await Twin.profileScreen(member, client)
        let stored = try #require(before.boards?.first { $0.name == boardName })

        try await member.letAccessTokenExpire(userId: signedIn._id)
        let profile = try await member.require(try await member.getMyProfile(), "my profile after 10 minutes")
        #expect(profile._id == signedIn._id)
        #expect(await member.refreshStatuses == [200])

        // A pin with the expired token: 419, and the app prints it as a success.
        try await member.letAccessTokenExpire(userId: signedIn._id)
        var pinPost = Twin.PinPost()
        pinPost.title = "공항 \(TestEnvironment.unique())"
        pinPost.content = "출국 전"
        pinPost.link = ""
        pinPost.board = stored.id
        pinPost.hashTags = Twin.hashTagPost(stored.hashTags)
        pinPost.imageDatas = [TestImages.png]
        let lost = try await member.post(pinPost: pinPost)
        #expect(lost.status == 419)
        #expect(await member.refreshStatuses == [200], "uploads are never retried")
        let screen = try await Twin.profileScreen(member, client)
        #expect(await member.refreshStatuses == [200, 200], "the profile tab renewed the token")
        let pinTitle = pinPost.title
        withKnownIssue(
            "TaeYoon defect: NetworkService+Pin.swift post(pinPost:) reads the answer with responseString, so a 419 never reaches MyAuthenticator and the pin is silently lost"
        ) {
            #expect(screen.loosePins.contains { $0.title == pinTitle })
        }

        // Two weeks later: 419 → refresh 418 → the profile call fails (the app only prints it).
        try await member.letRefreshTokenExpire()
        try await member.letAccessTokenExpire(userId: signedIn._id)
        let expired = try await member.getMyProfile()
        #expect(expired.status == 419)
        #expect(await member.refreshStatuses == [200, 200, 418])
    }
}
