import Foundation
import PostgresNIO
import SNSPlatform
import SNSTestSupport
import Testing

/// Client twin of **ClosetReturn** (옷장리턴, github.com/daeyunkwon/ClosetReturn, G1, Aug 2024): a used-clothes
/// market (product posts with price, size, category, brand and condition in `content1…4`), a style feed
/// (posts of a second `product_id`), likes (`like` for products, `like-2` for feeds), comments, profiles with
/// follow, profile edit, and purchase through the iamport SDK + `POST /v1/payments/validation`.
///
/// The app's network layer is Alamofire with a hand-written `Router: URLRequestConvertible` (query through
/// `URLComponents.queryItems`, bodies through `JSONEncoder()` of `[String: …]` dictionaries or request models),
/// two `AF.upload` calls (images, profile edit) and a 419 handler copied into every call of `NetworkManager`.
/// Its `APIKey.swift` (base URL, `sesacKey`, `productID`, `feedID`, iamport `userCode`) is git-ignored: the paths
/// below are the documented LSLP paths the `APIURL` names stand for, and each journey uses fresh `product_id`s.
enum ClosetReturnTwin {
    // MARK: - The app's constants (ClosetReturn: Service/Network/HeaderKey.swift, BodyKey.swift; APIKey.swift is not in the repository)

    /// `APIKey.productID` / `APIKey.feedID`: the app's two `product_id`s. Fresh per journey so lists are the
    /// journey's own.
    struct AppKeys: Sendable {
        let productID: String
        let feedID: String

        static func fresh() -> AppKeys {
            AppKeys(
                productID: TestEnvironment.unique("closetReturn_product_"),
                feedID: TestEnvironment.unique("closetReturn_feed_"))
        }
    }

    // MARK: - Decodable models (ClosetReturn: Model/*.swift, Service/Network/RefreshModel.swift)

    // ClosetReturn: Model/JoinUser.swift
    struct JoinUser: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
    }

    // ClosetReturn: Model/Login.swift
    struct Login: Decodable, Sendable {
        let user_id: String
        let email: String
        let nick: String
        let profileImage: String?
        let accessToken: String
        let refreshToken: String
    }

    // ClosetReturn: Service/Network/RefreshModel.swift
    struct RefreshModel: Decodable, Sendable {
        let accessToken: String
    }

    // ClosetReturn: Model/Files.swift
    struct Files: Decodable, Sendable {
        let files: [String]
    }

    // ClosetReturn: Model/ProductPost.swift (the home list, the product detail, likes/me, the purchase history)
    struct ProductPostData: Decodable, Sendable {
        let data: [ProductPost]
        let next_cursor: String
    }

    // ClosetReturn: Model/ProductPost.swift — every field the app reads is required except `content5`, `price`, `paidAt`.
    struct ProductPost: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let title: String
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let content4: String
        let content5: String?
        let createdAt: String
        let creator: Creator
        let files: [String]
        var likes: [String]
        var likes2: [String]
        var comments: [Comment]
        var price: Int?
        var buyers: [String]
        /// Never sent by the server for a post: the app fills it from `Payments.paidAt` (`setupPaidAt`).
        var paidAt: String?
    }

    // ClosetReturn: Model/ProductPost.swift
    struct Creator: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // ClosetReturn: Model/ProductPost.swift
    struct Comment: Decodable, Sendable {
        let comment_id: String
        let createdAt: String
        let content: String
        let creator: Creator
    }

    // ClosetReturn: Model/FeedPost.swift (the feed list, the feed detail, likes-2/me)
    struct FeedPostData: Decodable, Sendable {
        let data: [FeedPost]
        let next_cursor: String
    }

    // ClosetReturn: Model/FeedPost.swift
    struct FeedPost: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let content: String
        let createdAt: String
        let creator: Creator
        let files: [String]
        var likes: [String]
        var likes2: [String]
        var comments: [Comment]
    }

    // ClosetReturn: Model/CommonPost.swift (each of a profile's `posts`, fetched one by one). Note the app's keys
    // `like`/`like2` (the server says `likes`/`likes2`): optional, so they decode as nil and the app never reads them.
    struct CommonPost: Decodable, Sendable {
        let post_id: String
        let product_id: String
        let title: String?
        let price: Int?
        let content: String?
        let content1: String?
        let content2: String?
        let content3: String?
        let content4: String?
        let content5: String?
        let createdAt: String
        let files: [String]
        let like: [String]?
        let like2: [String]?
        let hashTags: [String]
        let comments: [Comment]
    }

    // ClosetReturn: Model/Profile.swift (own and others' profile, and the profile edit answer)
    struct Profile: Decodable, Sendable {
        let user_id: String
        let email: String?
        let phoneNum: String?
        let birthDay: String?
        let nick: String
        let profileImage: String?
        let followers: [FollowUser]
        let following: [FollowUser]
        let posts: [String]
    }

    // ClosetReturn: Model/Profile.swift
    struct FollowUser: Decodable, Sendable {
        let user_id: String
        let nick: String
        let profileImage: String?
    }

    // ClosetReturn: Model/Follow.swift
    struct Follow: Decodable, Sendable {
        let nick: String
        let opponent_nick: String
        let following_status: Bool
    }

    // ClosetReturn: Model/PaymentMe.swift
    struct PaymentMe: Decodable, Sendable {
        let data: [Payments]
    }

    // ClosetReturn: Model/Payments.swift (the validation answer and each history entry) — all optional.
    struct Payments: Decodable, Sendable {
        let buyer_id: String?
        let post_id: String?
        let merchant_uid: String?
        let productName: String?
        let price: Int?
        let paidAt: String?
    }

    /// `createDateString`/`createPaidAtDateString` of the models: `yyyy-MM-dd'T'HH:mm:ss.SSS'Z'` in UTC, or the
    /// app shows "NONE".
    static func date(_ string: String?) -> Date? {
        let dateFormatter = DateFormatter()
        dateFormatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSS'Z'"
        dateFormatter.timeZone = TimeZone(secondsFromGMT: 0)
        return dateFormatter.date(from: string ?? "")
    }

    // MARK: - Encodable request models (ClosetReturn: Service/Network/Upload*RequestModel.swift)

    // ClosetReturn: Service/Network/UploadPostRequestModel.swift (synthesized: `content5: nil` is left out)
    struct UploadPostRequestModel: Encodable, Sendable {
        let title: String
        let price: Int
        let content: String
        let content1: String
        let content2: String
        let content3: String
        let content4: String
        let content5: String?
        let product_id: String
        let files: [String]
    }

    // ClosetReturn: Service/Network/UploadFeedRequestModel.swift
    struct UploadFeedRequestModel: Encodable, Sendable {
        let content: String
        let product_id: String
        let files: [String]
    }

    // MARK: - Router (ClosetReturn: Service/Network/Router.swift)

    enum Router: Sendable {
        case emailValidation(email: String)
        case joinUser(email: String, password: String, nick: String, phoneNum: String?, birthDay: String?)
        case loginUser(email: String, password: String)
        case posts(next: String, limit: String, product_id: String)
        case imageFetch(imagePath: String)
        case refresh
        case like(postID: String, isLike: Bool)
        case postDetail(postID: String)
        case imageUpload
        case postUpload(uploadPostRequest: UploadPostRequestModel?, uploadFeedRequest: UploadFeedRequestModel?)
        case postModify(
            postID: String, uploadPostRequest: UploadPostRequestModel?, uploadFeedRequest: UploadFeedRequestModel?)
        case postDelete(postID: String)
        case commentUpload(postID: String, comment: String)
        case commentModify(postID: String, commentID: String, comment: String)
        case commentDelete(postID: String, commentID: String)
        case like2(postID: String, isLike: Bool)
        case likeFetch(next: String, limit: String)
        case like2Fetch(next: String, limit: String)
        case targetUserProfile(userID: String)
        case paymentsValid(imp_uid: String, post_id: String)
        case paymentMe
        case editProfile
        case follow(userID: String)
        case followCancel(userID: String)

        var method: String {
            switch self {
            case .emailValidation, .joinUser, .loginUser, .like, .imageUpload, .postUpload, .commentUpload, .like2,
                .paymentsValid, .follow:
                return "POST"
            case .posts, .imageFetch, .refresh, .postDetail, .likeFetch, .like2Fetch, .targetUserProfile, .paymentMe:
                return "GET"
            case .postModify, .commentModify, .editProfile:
                return "PUT"
            case .postDelete, .commentDelete, .followCancel:
                return "DELETE"
            }
        }

        /// `APIURL.*` (git-ignored) appended to a base URL ending in `/`; `imageFetch` is `"v1/\(imagePath)"` in the app.
        var path: String {
            switch self {
            case .emailValidation: return "/v1/validation/email"
            case .joinUser: return "/v1/users/join"
            case .loginUser: return "/v1/users/login"
            case .posts, .postUpload: return "/v1/posts"
            case .imageFetch(let imagePath): return "/v1/\(imagePath)"
            case .refresh: return "/v1/auth/refresh"
            case .like(let postID, _): return "/v1/posts/\(postID)/like"
            case .postDetail(let postID), .postModify(let postID, _, _), .postDelete(let postID):
                return "/v1/posts/\(postID)"
            case .imageUpload: return "/v1/posts/files"
            case .commentUpload(let postID, _): return "/v1/posts/\(postID)/comments"
            case .commentModify(let postID, let commentID, _), .commentDelete(let postID, let commentID):
                return "/v1/posts/\(postID)/comments/\(commentID)"
            case .like2(let postID, _): return "/v1/posts/\(postID)/like-2"
            case .likeFetch: return "/v1/posts/likes/me"
            case .like2Fetch: return "/v1/posts/likes-2/me"
            case .targetUserProfile(let userID): return "/v1/users/\(userID)/profile"
            case .paymentsValid: return "/v1/payments/validation"
            case .paymentMe: return "/v1/payments/me"
            case .editProfile: return "/v1/users/me/profile"
            case .follow(let userID), .followCancel(let userID): return "/v1/follow/\(userID)"
            }
        }

        /// `header`: note `Content-Type: application/json` on the post detail GET, and none on the follow POST.
        func header(sesacKey: String, accessToken: String, refreshToken: String) -> [(String, String)] {
            switch self {
            case .emailValidation, .joinUser, .loginUser:
                return [("Content-Type", "application/json"), ("SesacKey", sesacKey)]
            case .posts, .imageFetch, .postDelete, .commentDelete, .likeFetch, .like2Fetch, .targetUserProfile,
                .paymentMe, .follow, .followCancel:
                return [("Authorization", accessToken), ("SesacKey", sesacKey)]
            case .refresh:
                return [("Authorization", accessToken), ("SesacKey", sesacKey), ("Refresh", refreshToken)]
            case .like, .postDetail, .postUpload, .postModify, .commentUpload, .commentModify, .like2, .paymentsValid:
                return [("Authorization", accessToken), ("Content-Type", "application/json"), ("SesacKey", sesacKey)]
            case .imageUpload, .editProfile:
                return []
            }
        }

        /// `body`: `JSONEncoder()` of `[String: …]` dictionaries (key order is the dictionary's) or of the models.
        var body: Data? {
            let encoder = JSONEncoder()
            switch self {
            case .emailValidation(let email):
                return try? encoder.encode(["email": email])
            case .joinUser(let email, let password, let nick, let phoneNum, let birthDay):
                let body: [String: String?] = [
                    "email": email, "password": password, "nick": nick, "phoneNum": phoneNum, "birthDay": birthDay,
                ]
                return try? encoder.encode(body)
            case .loginUser(let email, let password):
                return try? encoder.encode(["email": email, "password": password])
            case .like(_, let isLike), .like2(_, let isLike):
                return try? encoder.encode(["like_status": isLike])
            case .postUpload(let uploadPostRequest, let uploadFeedRequest),
                .postModify(_, let uploadPostRequest, let uploadFeedRequest):
                if uploadPostRequest != nil && uploadFeedRequest == nil {
                    return try? encoder.encode(uploadPostRequest)
                } else {
                    return try? encoder.encode(uploadFeedRequest)
                }
            case .commentUpload(_, let comment), .commentModify(_, _, let comment):
                return try? encoder.encode(["content": comment])
            case .paymentsValid(let imp_uid, let post_id):
                return try? encoder.encode(["imp_uid": imp_uid, "post_id": post_id])
            default:
                return nil
            }
        }

        /// `query` as `URLQueryItem`s: `next` is sent even when empty (`next=`).
        var query: [(String, String?)]? {
            switch self {
            case .posts(let next, let limit, let product_id):
                return [("next", next), ("limit", limit), ("product_id", product_id)]
            case .likeFetch(let next, let limit), .like2Fetch(let next, let limit):
                return [("next", next), ("limit", limit)]
            default:
                return nil
            }
        }

        /// `asURLRequest()`: the body only for POST/PUT/PATCH, the query only for GET.
        func asURLRequest(sesacKey: String, accessToken: String, refreshToken: String) -> TwinRequest {
            var request = TwinRequest(
                method, path, headers: header(sesacKey: sesacKey, accessToken: accessToken, refreshToken: refreshToken))
            if method == "POST" || method == "PUT" || method == "PATCH" { request.body = body }
            if method == "GET", let query { request.query = TwinQuery.urlComponents(query) }
            return request
        }
    }

    // MARK: - NetworkManager + UserDefaultsManager (ClosetReturn: Service/Network/NetworkManager.swift, Service/Database/UserDefaultsManager.swift)

    // ClosetReturn: Service/Network/NetworkError.swift (the cases the twin can produce)
    enum NetworkError: Error, Equatable, Sendable, CustomStringConvertible {
        case statusError(codeNumber: Int)
        case refreshTokenExpired
        case invalidToken

        var description: String {
            switch self {
            case .statusError(let code): return "statusError(\(code))"
            case .refreshTokenExpired: return "refreshTokenExpired"
            case .invalidToken: return "invalidToken"
            }
        }
    }

    /// One installed app: `UserDefaultsManager` (tokens, user id, the like caches) and `NetworkManager`.
    ///
    /// The app's 419 handling (the same block in `performRequest`, `uploadImage`, `updateProfile`,
    /// `performDeleteReuqest`, `fetchImageData`): call `GET /v1/auth/refresh` with the stored access and refresh
    /// tokens, store the new `accessToken`, and then report **the original 419 answer** — it does not retry; the
    /// user taps again. A refresh answering 418 clears `UserDefaults` (`removeAll`) and the screen's alert sends
    /// the user to the login screen; 401 does the same (`invalidToken`).
    actor Session {
        let client: TwinClient
        let keys: AppKeys
        // UserDefaultsManager
        private(set) var accessToken = ""
        private(set) var refreshToken = ""
        private(set) var userID = ""
        private(set) var likeProducts: [String: Bool] = [:]
        private(set) var likeFeed: [String: Bool] = [:]
        // Test-side bookkeeping.
        private(set) var email = ""
        private(set) var password = ""
        private(set) var nick = ""
        private(set) var refreshes = 0
        private(set) var lastFailure = ""

        init(client: TwinClient, keys: AppKeys) {
            self.client = client
            self.keys = keys
        }

        private func urlRequest(_ api: Router) -> TwinRequest {
            api.asURLRequest(sesacKey: client.apiKey, accessToken: accessToken, refreshToken: refreshToken)
        }

        // ClosetReturn: NetworkManager.performRequest(api:model:) — validate(200...299), responseDecodable.
        func performRequest<T: Decodable & Sendable>(api: Router, model: T.Type) async throws -> Result<T, NetworkError>
        {
            let reply = try await client.send(urlRequest(api))
            return try await handle(reply, as: model)
        }

        private func handle<T: Decodable & Sendable>(_ reply: GatewayClient.Reply, as model: T.Type) async throws
            -> Result<T, NetworkError>
        {
            if reply.status == 419 {
                lastFailure = "419 \(reply.text)"
                if let failure = try await refreshTokens() { return .failure(failure) }
                return .failure(.statusError(codeNumber: 419))
            }
            guard (200...299).contains(reply.status) else {
                lastFailure = "\(reply.status) \(reply.text)"
                return .failure(.statusError(codeNumber: reply.status))
            }
            return .success(try client.decode(model, from: reply))
        }

        // ClosetReturn: NetworkManager.performDeleteReuqest(api:) — `AF.request(...).response` without `validate`:
        // every HTTP status is a success for the app. The twin hands the status back for the journeys to check.
        func performDeleteRequest(api: Router) async throws -> Result<Int, NetworkError> {
            let reply = try await client.send(urlRequest(api))
            if reply.status == 419, let failure = try await refreshTokens() { return .failure(failure) }
            if !(200...299).contains(reply.status) { lastFailure = "\(reply.status) \(reply.text)" }
            return .success(reply.status)
        }

        // ClosetReturn: NetworkManager.fetchImageData(imagePath:completionHandler:) — `Router.imageFetch`, responseData.
        func fetchImageData(imagePath: String) async throws -> Result<[UInt8], NetworkError> {
            let reply = try await client.send(urlRequest(.imageFetch(imagePath: imagePath)))
            if reply.status == 419 {
                if let failure = try await refreshTokens() { return .failure(failure) }
                return .failure(.statusError(codeNumber: 419))
            }
            guard (200...299).contains(reply.status) else {
                lastFailure = "\(reply.status) \(reply.text)"
                return .failure(.statusError(codeNumber: reply.status))
            }
            return .success(reply.body)
        }

        // ClosetReturn: NetworkManager.uploadImage(images:) — `AF.upload` to `v1/posts/files`, one `files` part per
        // image named `UUID().uuidString` (no extension) declared `image/jpeg` (the app JPEG-compresses; the
        // twin sends the test PNG under the same declaration). Alamofire replaces the app's bare
        // `Content-Type: multipart/form-data` header with the one carrying the boundary.
        func uploadImage(images: [[UInt8]]) async throws -> Result<Files, NetworkError> {
            var form = TwinMultipart()
            for image in images {
                form.file("files", filename: UUID().uuidString, mimeType: "image/jpeg", bytes: image)
            }
            let request = TwinRequest.multipart(
                "POST", Router.imageUpload.path, form,
                headers: [("SesacKey", client.apiKey), ("Authorization", accessToken)])
            return try await handle(try await client.send(request), as: Files.self)
        }

        // ClosetReturn: NetworkManager.updateProfile(profileImageData:nickname:phoneNumber:birthday:) — `AF.upload`
        // with `method: .put`: `profile` (file `UUID().uuidString`, `image/jpeg`), then `nick`, `phoneNum`,
        // `birthDay` as text parts without a declared type. The edit screen requires all four.
        func updateProfile(profileImageData: [UInt8], nickname: String, phoneNumber: String, birthday: String)
            async throws -> Result<Profile, NetworkError>
        {
            var form = TwinMultipart()
            form.file("profile", filename: UUID().uuidString, mimeType: "image/jpeg", bytes: profileImageData)
            form.text("nick", nickname)
            form.text("phoneNum", phoneNumber)
            form.text("birthDay", birthday)
            let request = TwinRequest.multipart(
                "PUT", Router.editProfile.path, form,
                headers: [("SesacKey", client.apiKey), ("Authorization", accessToken)])
            let result = try await handle(try await client.send(request), as: Profile.self)
            if case .success(let profile) = result { nick = profile.nick }
            return result
        }

        // ClosetReturn: NetworkManager.refreshToken(completionHandler:)
        private func refreshTokens() async throws -> NetworkError? {
            let reply = try await client.send(urlRequest(.refresh))
            if reply.status == 418 {
                removeAll()
                return .refreshTokenExpired
            }
            if (200...299).contains(reply.status) {
                accessToken = try client.decode(RefreshModel.self, from: reply).accessToken
                refreshes += 1
                return nil
            }
            lastFailure = "refresh \(reply.status) \(reply.text)"
            return reply.status == 401 ? .invalidToken : .statusError(codeNumber: reply.status)
        }

        // ClosetReturn: UserDefaultsManager.removeAll(completionHandler:) (after 418, on logout, on a failed login)
        func removeAll() {
            accessToken = ""
            refreshToken = ""
            userID = ""
            likeProducts = [:]
            likeFeed = [:]
        }

        // MARK: Screens' bookkeeping

        // ClosetReturn: Presentation/Onboarding/SignUp/SignUpViewModel.swift — the duplicate check, then join.
        // `phoneNum`/`birthDay` are `""` when left empty (the view model's initial values).
        func signUp(email: String, password: String, nick: String, phoneNum: String = "", birthDay: String = "")
            async throws -> JoinUser
        {
            let check = try await performRequest(api: .emailValidation(email: email), model: [String: String].self)
            _ = try require(check, "email validation")
            let joined = try require(
                try await performRequest(
                    api: .joinUser(
                        email: email, password: password, nick: nick,
                        phoneNum: phoneNum, birthDay: birthDay),
                    model: JoinUser.self), "join")
            self.email = email
            self.password = password
            self.nick = nick
            return joined
        }

        // ClosetReturn: Presentation/Onboarding/Login/LoginViewModel.swift — stores refresh, access, user id.
        func login() async throws -> Result<Login, NetworkError> {
            let result = try await performRequest(api: .loginUser(email: email, password: password), model: Login.self)
            switch result {
            case .success(let value):
                refreshToken = value.refreshToken
                accessToken = value.accessToken
                userID = value.user_id
            case .failure:
                removeAll()
            }
            return result
        }

        // ClosetReturn: HomeViewModel/ProductDetailViewModel/LikeViewModel `.like` success; FeedDetailViewModel `.like2`.
        func rememberProductLike(_ postID: String, _ isLike: Bool) { likeProducts[postID] = isLike ? true : nil }
        func rememberFeedLike(_ postID: String, _ isLike: Bool) { likeFeed[postID] = isLike ? true : nil }

        /// A successful result, or a recorded issue naming the step and the server's answer.
        func require<T: Sendable>(
            _ result: Result<T, NetworkError>, _ step: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> T {
            switch result {
            case .success(let value):
                return value
            case .failure(let error):
                Issue.record("\(step): \(error) — \(lastFailure)", sourceLocation: sourceLocation)
                throw error
            }
        }

        /// `performRequest` that must succeed.
        func call<T: Decodable & Sendable>(
            _ api: Router, _ model: T.Type, _ step: String,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> T {
            try require(try await performRequest(api: api, model: model), step, sourceLocation: sourceLocation)
        }

        // MARK: Time passing (test-side only)

        /// The access token expires: replaced by one for the same session that expired 100 s ago.
        func letAccessTokenExpire() async throws {
            accessToken = try await TwinTokens.expired(sameSessionAs: accessToken, userId: userID)
        }

        /// The refresh token's lifetime passes (its session's expiry moved into the past in auth's database).
        func letRefreshTokenExpire() async throws {
            try await TwinTokens.expireRefreshToken(sessionOf: accessToken)
        }
    }

    /// A new user through the app's sign-up and login screens.
    static func newUser(_ client: TwinClient, _ keys: AppKeys, phoneNum: String = "", birthDay: String = "")
        async throws -> (Session, JoinUser)
    {
        let session = Session(client: client, keys: keys)
        let nick = TestEnvironment.unique("cr")
        let joined = try await session.signUp(
            email: "\(nick)@closetreturn.example.com", password: "closet12!", nick: nick,
            phoneNum: phoneNum, birthDay: birthDay)
        let login = try await session.require(try await session.login(), "login")
        #expect(login.user_id == joined.user_id)
        #expect(login.nick == nick)
        return (session, joined)
    }

    /// The product edit screen's "완료": upload the photos, then `POST /v1/posts` with `UploadPostRequestModel`
    /// (ClosetReturn: Presentation/Home/Edit/ProductPostEditViewModel.swift).
    static func sell(_ session: Session, title: String, price: Int, images: Int = 1) async throws -> ProductPost {
        let files = try await session.require(
            try await session.uploadImage(images: Array(repeating: TestImages.png, count: images)), "image upload")
        #expect(files.files.count == images)
        let keys = session.keys
        let request = UploadPostRequestModel(
            title: title, price: price, content: "한 번 입었어요. 상태 좋아요.",
            content1: "M", content2: "아우터", content3: "무신사 스탠다드", content4: "A",
            content5: nil, product_id: keys.productID, files: files.files)
        let post = try await session.call(
            .postUpload(uploadPostRequest: request, uploadFeedRequest: nil), ProductPost.self, "product upload")
        #expect(post.title == title)
        #expect(post.price == price)
        #expect(post.product_id == keys.productID)
        #expect(post.files == files.files)
        #expect(post.buyers.isEmpty)
        let userID = await session.userID
        #expect(post.creator.user_id == userID)
        #expect(date(post.createdAt) != nil, "createdAt \(post.createdAt) is not yyyy-MM-dd'T'HH:mm:ss.SSS'Z'")
        return post
    }

    /// The home list (`limit` "7") paged the way `cellWillDisplay` does it: the next page while `next_cursor != "0"`.
    static func homePages(_ session: Session) async throws -> [[ProductPost]] {
        var pages: [[ProductPost]] = []
        var cursor = ""
        repeat {
            let page = try await session.call(
                .posts(next: cursor, limit: "7", product_id: session.keys.productID), ProductPostData.self, "home list")
            pages.append(page.data)
            cursor = page.next_cursor
            if pages.count > 20 {
                Issue.record("the home list never reached next_cursor \"0\"")
                break
            }
        } while cursor != "0"
        return pages
    }

    /// The HTTP status of a `statusError`, for the journeys' expectations.
    static func status<T>(_ result: Result<T, NetworkError>) -> Int? {
        if case .failure(.statusError(let code)) = result { return code }
        return nil
    }

    static func failure<T>(_ result: Result<T, NetworkError>) -> NetworkError? {
        if case .failure(let error) = result { return error }
        return nil
    }

    /// The PortOne SDK's part, played by the PortOne test server: the app's `IamportPayment` with
    /// `merchant_uid: "ios_\(sesacKey)_\(seconds)"` (milliseconds here, so parallel journeys never share one),
    /// `amount: "\(price)"`, `name: title`, `buyer_name: "권대윤"`. Answers `(imp_uid, merchant_uid)`.
    static func payWithIamport(apiKey: String, price: Int, title: String) async throws -> (String, String) {
        let sandbox = GatewayClient(baseURL: URL(string: try TestEnvironment.portOneURL())!)
        let merchantUid = "ios_\(apiKey)_\(Int(Date().timeIntervalSince1970 * 1000))"
        let body: [String: Any] = ["merchant_uid": merchantUid, "amount": price, "name": title, "buyer_name": "권대윤"]
        let json = String(decoding: try JSONSerialization.data(withJSONObject: body), as: UTF8.self)
        let paid = try await sandbox.send("POST", "/__sandbox/payments", json: json)
        #expect((200...201).contains(paid.status), "sandbox payment: \(paid.status) \(paid.text)")
        return (try #require(try paid.json.string("imp_uid")), merchantUid)
    }
}

@Suite("ClosetReturn twin")
struct ClosetReturnTwinTests {
    typealias Twin = ClosetReturnTwin

    /// Sign-up → login → the four tabs' first loads → eight listings → the home list paged to `next_cursor "0"` →
    /// a detail with its photos → an edit (re-upload + full `PUT`) → a delete → the seller's profile.
    @Test func sellerListsProductsPagesHomeEditsAndDeletes() async throws {
        let client = try TwinClient()
        let keys = Twin.AppKeys.fresh()
        let (seller, joined) = try await Twin.newUser(client, keys, phoneNum: "01012345678", birthDay: "19990105")
        let sellerId = joined.user_id

        // First screens after login: home (products), feed, likes (the feed tab loads on viewDidLoad), profile.
        let home = try await seller.call(
            .posts(next: "", limit: "7", product_id: keys.productID), Twin.ProductPostData.self, "home")
        #expect(home.data.isEmpty)
        #expect(home.next_cursor == "0")
        let feed = try await seller.call(
            .posts(next: "", limit: "15", product_id: keys.feedID), Twin.FeedPostData.self, "feed")
        #expect(feed.data.isEmpty && feed.next_cursor == "0")
        let liked = try await seller.call(.like2Fetch(next: "", limit: "15"), Twin.FeedPostData.self, "liked feeds")
        #expect(liked.data.isEmpty && liked.next_cursor == "0")
        let me = try await seller.call(.targetUserProfile(userID: sellerId), Twin.Profile.self, "my profile")
        #expect(me.user_id == sellerId)
        #expect(me.nick == joined.nick)
        #expect(me.posts.isEmpty && me.followers.isEmpty && me.following.isEmpty)
        let history = try await seller.call(.paymentMe, Twin.PaymentMe.self, "payment history")
        #expect(history.data.isEmpty)

        // Eight listings (the first with two photos), then the home list pages 7 + 1 to next_cursor "0".
        var listed: [Twin.ProductPost] = []
        for index in 0..<8 {
            listed.append(
                try await Twin.sell(
                    seller, title: "울 코트 \(index)", price: 30_000 + index * 1_000, images: index == 0 ? 2 : 1))
        }
        let pages = try await Twin.homePages(seller)
        #expect(pages.map(\.count) == [7, 1])
        #expect(
            pages.flatMap { $0 }.map(\.post_id) == listed.reversed().map(\.post_id),
            "home lists newest first, nothing skipped or repeated")

        // The detail: the seller's own listing shows the menu, unsold, and its photos load.
        let first = listed[0]
        let detail = try await seller.call(.postDetail(postID: first.post_id), Twin.ProductPost.self, "product detail")
        #expect(detail.creator.user_id == sellerId, "the app shows the edit/delete menu only to the creator")
        #expect(detail.buyers.isEmpty)
        #expect(
            detail.content1 == "M" && detail.content2 == "아우터" && detail.content3 == "무신사 스탠다드"
                && detail.content4 == "A")
        #expect(detail.files.count == 2)
        for path in detail.files {
            let photo = try await seller.require(try await seller.fetchImageData(imagePath: path), "photo \(path)")
            #expect(photo == TestImages.png)
        }

        // Edit: the edit screen reloads the photos as data, re-uploads them, and PUTs the whole model.
        let files = try await seller.require(
            try await seller.uploadImage(images: [TestImages.png, TestImages.png]), "re-upload")
        let edit = Twin.UploadPostRequestModel(
            title: "울 코트 (가격 내림)", price: 25_000, content: "가격 내렸어요", content1: "L",
            content2: "아우터", content3: "무신사 스탠다드", content4: "B", content5: nil,
            product_id: keys.productID, files: files.files)
        let edited = try await seller.call(
            .postModify(postID: first.post_id, uploadPostRequest: edit, uploadFeedRequest: nil),
            Twin.ProductPost.self, "product modify")
        #expect(edited.post_id == first.post_id)
        #expect(
            edited.title == "울 코트 (가격 내림)" && edited.price == 25_000 && edited.content1 == "L" && edited.content4 == "B"
        )
        #expect(edited.files == files.files)
        let reread = try await seller.call(
            .postDetail(postID: first.post_id), Twin.ProductPost.self, "detail after edit")
        #expect(reread.title == "울 코트 (가격 내림)" && reread.price == 25_000 && reread.files == files.files)

        // Delete (allowed while `buyers` is empty); the app pops back and the home reloads.
        let doomed = listed[3]
        let deleted = try await seller.require(
            try await seller.performDeleteRequest(api: .postDelete(postID: doomed.post_id)), "delete")
        #expect(deleted == 200)
        let gone = try await seller.performRequest(
            api: .postDetail(postID: doomed.post_id), model: Twin.ProductPost.self)
        #expect(Twin.status(gone) == 410)
        let reloaded = try await Twin.homePages(seller).flatMap { $0 }.map(\.post_id)
        #expect(reloaded == listed.reversed().map(\.post_id).filter { $0 != doomed.post_id })

        // The profile tab: `posts` fetched one by one as CommonPost and split by product_id.
        let profile = try await seller.call(
            .targetUserProfile(userID: sellerId), Twin.Profile.self, "my profile after listing")
        #expect(Set(profile.posts) == Set(listed.map(\.post_id).filter { $0 != doomed.post_id }))
        for postID in profile.posts {
            let post = try await seller.call(
                .postDetail(postID: postID), Twin.CommonPost.self, "profile post \(postID)")
            #expect(post.product_id == keys.productID)
            #expect(post.price != nil && post.title != nil)
        }
    }

    /// A buyer: home → detail → like and the like tab → comments (write, edit, delete) → the seller's profile,
    /// follow and unfollow → purchase (iamport + validation) → the listing sold → the buyer's purchase history.
    @Test func buyerLikesCommentsFollowsAndBuys() async throws {
        let client = try TwinClient()
        let keys = Twin.AppKeys.fresh()
        let (seller, sellerJoin) = try await Twin.newUser(client, keys)
        let (buyer, buyerJoin) = try await Twin.newUser(client, keys, phoneNum: "01087654321", birthDay: "20010203")
        let sellerId = sellerJoin.user_id, buyerId = buyerJoin.user_id
        let product = try await Twin.sell(seller, title: "나이키 바람막이", price: 35_000, images: 2)

        // Home → detail.
        let home = try await Twin.homePages(buyer).flatMap { $0 }
        #expect(home.map(\.post_id) == [product.post_id])
        #expect(home.first?.likes.contains(buyerId) == false)
        let detail = try await buyer.call(.postDetail(postID: product.post_id), Twin.ProductPost.self, "detail")
        #expect(detail.creator.user_id == sellerId && detail.creator.nick == sellerJoin.nick)
        #expect(detail.buyers.isEmpty, "the buy button is enabled")
        let photo = try await buyer.require(try await buyer.fetchImageData(imagePath: detail.files[0]), "photo")
        #expect(photo == TestImages.png)

        // Like (♡) → the like tab's product list (`limit` "7") → unlike from there → like again.
        let like = try await buyer.call(.like(postID: product.post_id, isLike: true), [String: Bool].self, "like")
        #expect(like == ["like_status": true])
        await buyer.rememberProductLike(product.post_id, true)
        let likes = try await buyer.call(.likeFetch(next: "", limit: "7"), Twin.ProductPostData.self, "liked products")
        #expect(likes.data.map(\.post_id) == [product.post_id])
        #expect(likes.data.first?.likes.contains(buyerId) == true)
        #expect(likes.next_cursor == "0")
        let unlike = try await buyer.call(.like(postID: product.post_id, isLike: false), [String: Bool].self, "unlike")
        #expect(unlike == ["like_status": false])
        await buyer.rememberProductLike(product.post_id, false)
        let noLikes = try await buyer.call(
            .likeFetch(next: "", limit: "7"), Twin.ProductPostData.self, "liked products after unlike")
        #expect(noLikes.data.isEmpty)
        _ = try await buyer.call(.like(postID: product.post_id, isLike: true), [String: Bool].self, "like again")

        // Comments: write, edit, delete (the comment screen keeps its own list; the detail re-reads).
        let comment = try await buyer.call(
            .commentUpload(postID: product.post_id, comment: "어깨 품 몇 cm인가요?"),
            Twin.Comment.self, "comment")
        #expect(comment.content == "어깨 품 몇 cm인가요?")
        #expect(comment.creator.user_id == buyerId && comment.creator.nick == buyerJoin.nick)
        #expect(Twin.date(comment.createdAt) != nil)
        let reply = try await seller.call(
            .commentUpload(postID: product.post_id, comment: "52cm 입니다"), Twin.Comment.self, "reply")
        let withComments = try await buyer.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "detail with comments")
        #expect(Set(withComments.comments.map(\.comment_id)) == [comment.comment_id, reply.comment_id])
        let modified = try await buyer.call(
            .commentModify(postID: product.post_id, commentID: comment.comment_id, comment: "어깨 품이 궁금해요"),
            Twin.Comment.self, "comment modify")
        #expect(modified.comment_id == comment.comment_id && modified.content == "어깨 품이 궁금해요")
        let removed = try await buyer.require(
            try await buyer.performDeleteRequest(
                api: .commentDelete(postID: product.post_id, commentID: comment.comment_id)),
            "comment delete")
        #expect(removed == 200)
        let afterDelete = try await buyer.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "detail after comment delete")
        #expect(afterDelete.comments.map(\.comment_id) == [reply.comment_id])

        // The seller's profile (tapping the creator): not followed yet → follow → unfollow → follow.
        let sellerProfile = try await buyer.call(
            .targetUserProfile(userID: sellerId), Twin.Profile.self, "seller profile")
        #expect(sellerProfile.nick == sellerJoin.nick)
        #expect(!sellerProfile.followers.contains { $0.user_id == buyerId })
        #expect(sellerProfile.posts == [product.post_id])
        let common = try await buyer.call(.postDetail(postID: product.post_id), Twin.CommonPost.self, "seller's post")
        #expect(common.product_id == keys.productID && common.price == 35_000)
        let follow = try await buyer.call(.follow(userID: sellerId), Twin.Follow.self, "follow")
        #expect(follow.following_status && follow.nick == buyerJoin.nick && follow.opponent_nick == sellerJoin.nick)
        let followed = try await buyer.call(
            .targetUserProfile(userID: sellerId), Twin.Profile.self, "seller profile after follow")
        #expect(followed.followers.map(\.user_id) == [buyerId], "the follow button shows 'following'")
        let mine = try await buyer.call(
            .targetUserProfile(userID: buyerId), Twin.Profile.self, "my profile after follow")
        #expect(mine.following.map(\.user_id) == [sellerId])
        let unfollow = try await buyer.call(.followCancel(userID: sellerId), Twin.Follow.self, "unfollow")
        #expect(!unfollow.following_status)
        let unfollowed = try await buyer.call(
            .targetUserProfile(userID: sellerId), Twin.Profile.self, "seller profile after unfollow")
        #expect(unfollowed.followers.isEmpty)
        let followAgain = try await buyer.call(.follow(userID: sellerId), Twin.Follow.self, "follow again")
        #expect(followAgain.following_status)

        // Purchase: iamport pays the listing's price, then the app validates `{imp_uid, post_id}`.
        let (impUid, merchantUid) = try await Twin.payWithIamport(
            apiKey: client.apiKey, price: 35_000, title: detail.title)
        let payment = try await buyer.call(
            .paymentsValid(imp_uid: impUid, post_id: product.post_id), Twin.Payments.self, "payment validation")
        #expect(payment.post_id == product.post_id)
        #expect(payment.buyer_id == buyerId)
        #expect(payment.price == 35_000)
        #expect(payment.merchant_uid == merchantUid)
        #expect(payment.productName == "나이키 바람막이")
        #expect(Twin.date(payment.paidAt) != nil, "paidAt \(payment.paidAt ?? "nil")")

        // The detail now shows the item sold; the seller can no longer edit or delete it (client-side check).
        let sold = try await buyer.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "detail after purchase")
        #expect(sold.buyers == [buyerId])
        let sellersView = try await seller.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "seller's detail after purchase")
        #expect(!sellersView.buyers.isEmpty, "the app refuses edit and delete of a sold listing")

        // The buyer's profile tab: purchase history, each entry's post read as ProductPost with paidAt.
        let buyerProfile = try await buyer.call(.targetUserProfile(userID: buyerId), Twin.Profile.self, "my profile")
        #expect(buyerProfile.posts.isEmpty)
        let history = try await buyer.call(.paymentMe, Twin.PaymentMe.self, "payment history")
        #expect(history.data.map(\.post_id) == [product.post_id])
        #expect(history.data.first?.merchant_uid == merchantUid && history.data.first?.price == 35_000)
        for entry in history.data {
            var bought = try await buyer.call(
                .postDetail(postID: try #require(entry.post_id)), Twin.ProductPost.self, "bought post")
            bought.paidAt = entry.paidAt ?? "NONE"
            #expect(Twin.date(bought.paidAt) != nil)
            #expect(bought.buyers.contains(buyerId))
        }
        let sellerHistory = try await seller.call(.paymentMe, Twin.PaymentMe.self, "seller's payment history")
        #expect(sellerHistory.data.isEmpty)
    }

    /// The style feed: post with photos → the feed list (`limit` "15") → another user's detail, like-2 and the
    /// like tab's feed list → edit → the author's profile (CommonPost with hashTags) → delete.
    @Test func feedPostLike2EditAndDelete() async throws {
        let client = try TwinClient()
        let keys = Twin.AppKeys.fresh()
        let (author, authorJoin) = try await Twin.newUser(client, keys)
        let (fan, fanJoin) = try await Twin.newUser(client, keys)
        let authorId = authorJoin.user_id, fanId = fanJoin.user_id

        // ClosetReturn: Presentation/Feed/Edit/FeedEditViewModel.swift — upload, then `UploadFeedRequestModel`.
        let files = try await author.require(
            try await author.uploadImage(images: [TestImages.png, TestImages.png, TestImages.png]), "feed photos")
        #expect(files.files.count == 3)
        let request = Twin.UploadFeedRequestModel(
            content: "오늘의 코디 #데일리룩 #OOTD", product_id: keys.feedID, files: files.files)
        let created = try await author.call(
            .postUpload(uploadPostRequest: nil, uploadFeedRequest: request), Twin.FeedPost.self, "feed upload")
        #expect(created.product_id == keys.feedID && created.files == files.files && created.likes2.isEmpty)
        #expect(created.creator.user_id == authorId)

        // The fan's feed tab, then the detail.
        let feed = try await fan.call(
            .posts(next: "", limit: "15", product_id: keys.feedID), Twin.FeedPostData.self, "feed")
        #expect(feed.data.map(\.post_id) == [created.post_id])
        #expect(feed.next_cursor == "0")
        let home = try await fan.call(
            .posts(next: "", limit: "7", product_id: keys.productID), Twin.ProductPostData.self, "home")
        #expect(home.data.isEmpty, "feed posts never reach the product list")
        let detail = try await fan.call(.postDetail(postID: created.post_id), Twin.FeedPost.self, "feed detail")
        #expect(detail.content == "오늘의 코디 #데일리룩 #OOTD" && detail.likes2.isEmpty)
        for path in detail.files {
            let photo = try await fan.require(try await fan.fetchImageData(imagePath: path), "feed photo")
            #expect(photo == TestImages.png)
        }

        // like-2: the detail reads `data.first?.value`.
        let liked = try await fan.call(.like2(postID: created.post_id, isLike: true), [String: Bool].self, "like-2")
        #expect(liked.first?.value == true)
        await fan.rememberFeedLike(created.post_id, true)
        let likedFeeds = try await fan.call(.like2Fetch(next: "", limit: "15"), Twin.FeedPostData.self, "liked feeds")
        #expect(likedFeeds.data.map(\.post_id) == [created.post_id])
        #expect(likedFeeds.data.first?.likes2 == [fanId])
        let likedProducts = try await fan.call(
            .likeFetch(next: "", limit: "7"), Twin.ProductPostData.self, "liked products")
        #expect(likedProducts.data.isEmpty, "like-2 is not like")
        let counted = try await fan.call(
            .postDetail(postID: created.post_id), Twin.FeedPost.self, "feed detail after like-2")
        #expect(counted.likes2.count == 1)

        // A comment on the feed (the same comment screen).
        let comment = try await fan.call(
            .commentUpload(postID: created.post_id, comment: "코트 정보 알 수 있을까요?"), Twin.Comment.self, "feed comment")
        #expect(comment.creator.user_id == fanId)

        // The author edits: re-upload, `PUT` with the feed model.
        let newFiles = try await author.require(
            try await author.uploadImage(images: [TestImages.png]), "feed re-upload")
        let edit = Twin.UploadFeedRequestModel(
            content: "비 오는 날 코디 #레인룩", product_id: keys.feedID, files: newFiles.files)
        let edited = try await author.call(
            .postModify(postID: created.post_id, uploadPostRequest: nil, uploadFeedRequest: edit), Twin.FeedPost.self,
            "feed modify")
        #expect(edited.content == "비 오는 날 코디 #레인룩" && edited.files == newFiles.files)
        #expect(edited.likes2 == [fanId] && edited.comments.map(\.comment_id) == [comment.comment_id])
        let reread = try await fan.call(
            .postDetail(postID: created.post_id), Twin.FeedPost.self, "feed detail after edit")
        #expect(reread.content == "비 오는 날 코디 #레인룩")

        // The author's profile: the feed post as CommonPost (no title/price), with its hashtags.
        let profile = try await fan.call(.targetUserProfile(userID: authorId), Twin.Profile.self, "author profile")
        #expect(profile.posts == [created.post_id])
        let common = try await fan.call(.postDetail(postID: created.post_id), Twin.CommonPost.self, "author's post")
        #expect(common.product_id == keys.feedID && common.title == nil && common.price == nil)
        #expect(common.hashTags == ["레인룩"])

        // Unlike, then the author deletes it.
        let unliked = try await fan.call(
            .like2(postID: created.post_id, isLike: false), [String: Bool].self, "like-2 off")
        #expect(unliked.first?.value == false)
        await fan.rememberFeedLike(created.post_id, false)
        let deleted = try await author.require(
            try await author.performDeleteRequest(api: .postDelete(postID: created.post_id)), "feed delete")
        #expect(deleted == 200)
        let gone = try await fan.performRequest(api: .postDetail(postID: created.post_id), model: Twin.FeedPost.self)
        #expect(Twin.status(gone) == 410)
        let emptyFeed = try await fan.call(
            .posts(next: "", limit: "15", product_id: keys.feedID), Twin.FeedPostData.self, "feed after delete")
        #expect(emptyFeed.data.isEmpty && emptyFeed.next_cursor == "0")
        let authorAfter = try await author.call(
            .targetUserProfile(userID: authorId), Twin.Profile.self, "author profile after delete")
        #expect(authorAfter.posts.isEmpty)
    }

    /// Profile edit (multipart PUT with photo, nick, phone, birthday) → the profile, the listing's creator and
    /// another user's view all show the new nick and photo at once.
    @Test func profileEditShowsTheNewNickEverywhere() async throws {
        let client = try TwinClient()
        let keys = Twin.AppKeys.fresh()
        let (user, joined) = try await Twin.newUser(client, keys)
        let (visitor, _) = try await Twin.newUser(client, keys)
        let userId = joined.user_id
        let product = try await Twin.sell(user, title: "리바이스 데님 자켓", price: 48_000)

        let newNick = TestEnvironment.unique("cr")
        let edited = try await user.require(
            try await user.updateProfile(
                profileImageData: TestImages.png, nickname: newNick,
                phoneNumber: "01055556666", birthday: "20000101"), "profile edit")
        #expect(edited.user_id == userId)
        #expect(edited.nick == newNick)
        #expect(edited.phoneNum == "01055556666")
        #expect(edited.birthDay == "20000101")
        let image = try #require(edited.profileImage, "the edit answer carries the new profile image")

        // ProfileEditViewController pops; the profile tab refreshes.
        let profile = try await user.call(.targetUserProfile(userID: userId), Twin.Profile.self, "profile after edit")
        #expect(profile.nick == newNick)
        #expect(profile.profileImage == image)
        let photo = try await user.require(try await user.fetchImageData(imagePath: image), "profile image")
        #expect(photo == TestImages.png)

        // The listing's creator and the visitor's view of the profile.
        let detail = try await visitor.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "detail after rename")
        #expect(detail.creator.nick == newNick)
        #expect(detail.creator.profileImage == image)
        let seen = try await visitor.call(.targetUserProfile(userID: userId), Twin.Profile.self, "visitor's view")
        #expect(seen.nick == newNick && seen.profileImage == image)
        let home = try await Twin.homePages(visitor).flatMap { $0 }
        #expect(home.first?.creator.nick == newNick)

        // Taking a nick already in use: 409 (the app's alert "이미 사용중인 닉네임").
        let taken = try await visitor.updateProfile(
            profileImageData: TestImages.png, nickname: newNick, phoneNumber: "01011112222", birthday: "19900101")
        #expect(Twin.status(taken) == 409)
    }

    /// The app's 419 handling: refresh, keep the new access token, report the 419 (no retry) — the next tap
    /// works. A refresh answering 418 clears UserDefaults and sends the user to the login screen.
    @Test func expiredAccessTokenRefreshesWithoutRetryAndLogsOutOn418() async throws {
        let client = try TwinClient()
        let keys = Twin.AppKeys.fresh()
        let (user, _) = try await Twin.newUser(client, keys)
        let product = try await Twin.sell(user, title: "코듀로이 팬츠", price: 19_000)

        try await user.letAccessTokenExpire()
        let expired = try await user.performRequest(
            api: .posts(next: "", limit: "7", product_id: keys.productID), model: Twin.ProductPostData.self)
        #expect(Twin.status(expired) == 419, "the app reports the first answer, it does not retry")
        #expect(await user.refreshes == 1)
        let again = try await user.call(
            .posts(next: "", limit: "7", product_id: keys.productID), Twin.ProductPostData.self, "home after refresh")
        #expect(again.data.map(\.post_id) == [product.post_id])

        // The upload path has the same handler.
        try await user.letAccessTokenExpire()
        let upload = try await user.uploadImage(images: [TestImages.png])
        #expect(Twin.status(upload) == 419)
        #expect(await user.refreshes == 2)
        _ = try await user.require(try await user.uploadImage(images: [TestImages.png]), "upload after refresh")

        // The delete path does not validate: the app calls an expired-token delete a success. The server must not
        // have deleted anything.
        try await user.letAccessTokenExpire()
        let delete = try await user.require(
            try await user.performDeleteRequest(api: .postDelete(postID: product.post_id)), "delete with expired token")
        #expect(delete == 419)
        #expect(await user.refreshes == 3)
        let still = try await user.call(
            .postDetail(postID: product.post_id), Twin.ProductPost.self, "detail after refused delete")
        #expect(still.post_id == product.post_id)

        // Both tokens expired: 419 → refresh 418 → removeAll → the login screen.
        try await user.letRefreshTokenExpire()
        try await user.letAccessTokenExpire()
        let loggedOut = try await user.performRequest(
            api: .posts(next: "", limit: "7", product_id: keys.productID), model: Twin.ProductPostData.self)
        #expect(Twin.failure(loggedOut) == .refreshTokenExpired)
        let access = await user.accessToken, refresh = await user.refreshToken, storedUserID = await user.userID
        #expect(access.isEmpty && refresh.isEmpty && storedUserID.isEmpty, "UserDefaultsManager.removeAll after 418")
        _ = try await user.require(try await user.login(), "login again")
        let back = try await user.call(
            .posts(next: "", limit: "7", product_id: keys.productID), Twin.ProductPostData.self, "home after login")
        #expect(back.data.map(\.post_id) == [product.post_id])
    }
}
