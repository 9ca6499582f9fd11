import Foundation
import Hummingbird
import SNSPlatform

/// `GET /v1/users/search?nick=` (§2.2 #9) and the rankings (ours): `GET /v1/rankings/{posts|users|hashtags}
/// ?product_id&window=1h|24h|7d&limit` → `{data: [...]}`.
struct SearchAndRankingHandlers: Sendable {
    let deps: SocialDependencies

    static let searchLimit = 20
    static let maxTermLength = 50
    static let defaultRankingLimit = 10
    static let maxRankingLimit = 50

    func search(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try context.requireUser()
        let term = (request.uri.queryParameters["nick"].map(String.init) ?? "").trimmingCharacters(
            in: .whitespacesAndNewlines)
        guard !term.isEmpty else { throw APIError.badRequest("nick 값을 입력해주세요. (nick is required)") }
        guard term.count <= Self.maxTermLength else {
            throw APIError.badRequest("검색어가 너무 깁니다. (nick longer than \(Self.maxTermLength) characters)")
        }
        let users = try await deps.store.search(term, limit: Self.searchLimit, logger: context.logger)
        return try .json(DataList(data: context.productId == nil ? users : users.map(\.g2)))
    }

    func posts(_ request: Request, context: APIRequestContext) async throws -> Response {
        let (productId, window, limit) = try parameters(request, context: context)
        return try .json(
            DataList(
                data: try await deps.rankings.posts(
                    productId: productId, window: window, limit: limit, logger: context.logger)))
    }

    func users(_ request: Request, context: APIRequestContext) async throws -> Response {
        let (productId, window, limit) = try parameters(request, context: context)
        return try .json(
            DataList(
                data: try await deps.rankings.users(
                    productId: productId, window: window, limit: limit, logger: context.logger)))
    }

    func hashtags(_ request: Request, context: APIRequestContext) async throws -> Response {
        let (productId, window, limit) = try parameters(request, context: context)
        return try .json(
            DataList(
                data: try await deps.rankings.hashtags(
                    productId: productId, window: window, limit: limit, logger: context.logger)))
    }

    private func parameters(_ request: Request, context: APIRequestContext) throws -> (String?, RankingWindow, Int) {
        _ = try context.requireUser()
        let query = request.uri.queryParameters
        let productId = query["product_id"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let window = try RankingWindow(query: query["window"].map(String.init))
        var limit = Self.defaultRankingLimit
        if let raw = query["limit"].map(String.init), !raw.isEmpty {
            guard let value = Int(raw), value >= 1 else {
                throw APIError.badRequest("limit 값이 올바르지 않습니다. (limit must be a positive integer)")
            }
            limit = min(value, Self.maxRankingLimit)
        }
        return (productId, window, limit)
    }
}
