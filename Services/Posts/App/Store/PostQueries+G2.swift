import Logging
import PostgresNIO
import SNSPlatform

/// The G2 lists (decision 0021): the posts of the caller's app, optionally of one category, each with its G2 extras.
extension PostQueries {
    enum G2List: Sendable {
        case all(app: String, category: String?)
        case byUser(app: String, userId: String, category: String?)
        case byHashtag(app: String, tag: String, category: String?)
        case liked(app: String, userId: String, kind: LikeKind, category: String?)
        case following(app: String, userId: String, category: String?)
        case titleSearch(app: String, text: String, category: String?)
    }

    /// One post with its G2 extras, whichever app wrote it.
    func oneG2(postId: String, reader: String, logger: Logger) async throws -> PostJSONText? {
        try await run(G2OnePostPage.self, bindings: Self.bindings(postId), reader: reader, logger: logger).first?.post
    }

    /// A write's answer, read in its transaction: the G2 document when a G2 app asked.
    func answer(postId: String, for caller: Caller, on connection: PostgresConnection) async throws -> PostJSONText? {
        caller.productId == nil
            ? try await first(OnePostPage.self, postId: postId, on: connection, logger: caller.logger)
            : try await first(G2OnePostPage.self, postId: postId, on: connection, logger: caller.logger)
    }

    func list(_ list: G2List, page: Page, reader: String, logger: Logger) async throws -> Result {
        try await self.page(page, reader: reader, logger: logger) { Self.route(list, page: page) }
    }

    func joinedList(_ list: G2List, page: Page, reader: String, logger: Logger) async throws -> Joined {
        try await joinedPage(page, reader: reader, logger: logger) { Self.route(list, page: page) }
    }

    static func route(_ list: G2List, page: Page) -> (any PageSQL.Type, PostgresBindings) {
        var bindings = PostgresBindings()
        bindings.append(page.before)
        bindings.append(Int64(page.limit + 1))
        switch list {
        case .all(let app, nil):
            bindings.append(app)
            return (G2AllPostsPage.self, bindings)
        case .all(let app, let category?):
            bindings.append(app)
            bindings.append(category)
            return (G2CategoryPostsPage.self, bindings)
        case .byUser(let app, let userId, let category):
            bindings.append(app)
            bindings.append(userId)
            bindings.append(category)
            return (G2UserPostsPage.self, bindings)
        case .byHashtag(let app, let tag, let category):
            bindings.append(app)
            bindings.append(tag)
            bindings.append(category)
            return (G2HashtagPostsPage.self, bindings)
        case .liked(let app, let userId, let kind, let category):
            bindings.append(app)
            bindings.append(userId)
            bindings.append(kind.code)
            bindings.append(category)
            return (G2LikedPostsPage.self, bindings)
        case .following(let app, let userId, let category):
            bindings.append(app)
            bindings.append(userId)
            bindings.append(category)
            return (G2FollowingPostsPage.self, bindings)
        case .titleSearch(let app, let text, let category):
            bindings.append(app)
            bindings.append(text)
            bindings.append(category)
            return text.count < 2 ? (G2TitleScanPage.self, bindings) : (G2TitleSearchPage.self, bindings)
        }
    }
}
