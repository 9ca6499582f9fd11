import Foundation
import Hummingbird
import SNSPlatform

/// Reads that only G2 has (decision 0021): posts near a point, and a post's comments on their own.
struct G2PostHandlers: Sendable {
    let deps: PostsDependencies

    /// Nearby lists are not paged by the apps (both read the first answer only), so the default is the maximum.
    static let nearbyLimit = 100

    /// `GET /v1/posts/geolocation?latitude&longitude&maxDistance&order_by&sort_by&category&next&limit`.
    /// `maxDistance` in metres (absent: the whole sphere); `order_by` `distance` (default, nearest first) or
    /// `createdAt` (newest first); `sort_by` `asc`/`desc` turns either around.
    func nearby(_ request: Request, context: APIRequestContext) async throws -> Response {
        let app = try context.requireProductId()
        let query = request.uri.queryParameters
        func number(_ name: String, _ range: ClosedRange<Double>) throws -> Double? {
            guard let raw = query[Substring(name)].map(String.init), !raw.isEmpty else { return nil }
            guard let value = Double(raw.trimmingCharacters(in: .whitespaces)), value.isFinite, range.contains(value)
            else {
                throw APIError.badRequest("\(name) 값이 올바르지 않습니다. (\(name) must be a number in \(range))")
            }
            return value
        }
        guard let latitude = try number("latitude", -90...90), let longitude = try number("longitude", -180...180)
        else {
            throw APIError.badRequest("latitude, longitude 값을 입력해주세요. (latitude and longitude are required)")
        }
        let maxDistance = try number("maxDistance", 0...1e9) ?? 1e9
        let order: NearbyQuery.Order
        switch query["order_by"].map(String.init) ?? "" {
        case "", "distance": order = .distance
        case "createdAt", "created_at": order = .createdAt
        default: throw APIError.badRequest("order_by 값이 올바르지 않습니다. (order_by must be distance or createdAt)")
        }
        let ascending: Bool
        switch query["sort_by"].map(String.init) ?? "" {
        case "": ascending = order == .distance
        case "asc": ascending = true
        case "desc": ascending = false
        default: throw APIError.badRequest("sort_by 값이 올바르지 않습니다. (sort_by must be asc or desc)")
        }
        var after: NearbyCursor?
        if let next = query["next"].map(String.init), !next.isEmpty {
            if next == Cursor.end { return try .postList([], nextCursor: Cursor.end, .g2) }
            guard let cursor = NearbyCursor(next), cursor.order == NearbyCursor.tag(order, ascending: ascending)
            else {
                throw APIError.badRequest("next 값이 올바르지 않습니다. (invalid cursor)")
            }
            after = cursor
        }
        let limit =
            try query["limit"].flatMap { $0.isEmpty ? nil : try Page.parseLimit(String($0)) } ?? Self.nearbyLimit
        let category = query["category"].map(String.init).flatMap { $0.isEmpty ? nil : $0 }
        let result = try await NearbyQuery(
            latitude: latitude, longitude: longitude, maxDistance: maxDistance, app: app, category: category,
            order: order, ascending: ascending, limit: limit, after: after
        ).run(on: deps.postgres, logger: context.logger)
        return try .postList(result.posts, nextCursor: result.nextCursor, .g2)
    }

    /// `GET /v1/posts/{post_id}/comments` → `{data: [comment]}` (WeeMo's comment sheet), newest first as in the post.
    func comments(_ request: Request, context: APIRequestContext) async throws -> Response {
        _ = try context.requireProductId()
        let postId = try context.parameters.require("post_id")
        guard
            let comments = try await deps.queries.first(
                G2CommentsPage.self, postId: postId, on: nil, logger: context.logger)
        else { throw PostsDependencies.postGone }
        return .post(comments)  // ready JSON text, passed through
    }
}
