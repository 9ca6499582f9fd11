import HTTPTypes
import Hummingbird

extension HTTPField.Name {
    /// The G2 apps' name for themselves (decision 0021).
    package static let productId = HTTPField.Name("ProductId")!
}

/// G2 apps (2024–25) send `ProductId` on every request, on the same `/v1` paths as G1 (decision 0021). A request that
/// carries the header is a G2 request: its id must be one of the registered apps (`SNS_PRODUCT_IDS`), else 421; the
/// id travels in the context (`EdgeMiddleware` sets it), and handlers answer in the G2 encoding. A request without it
/// is G1 (or G0), unchanged. Routes that exist only in G2 require it (`APIRequestContext.requireProductId`).
package struct ProductIdCheck: Sendable {
    let registered: Set<String>

    package init(registered: Set<String>) {
        self.registered = registered
    }

    /// The request's app, nil for a G1/G0 request; throws 421 for an app that is not registered.
    func productId(of request: Request) throws -> String? {
        // G2 lives under `/v1` only: G0's unprefixed routes stay G0 and the Socket.IO handshake checks its own header
        // (`SocketAuthorizer`).
        guard let raw = request.headers[.productId], request.uri.path.hasPrefix("/v1/") else { return nil }
        let productId = raw.trimmingWhitespace()
        guard registered.contains(productId) else { throw APIError.invalidProductId() }
        return productId
    }
}

extension APIRequestContext {
    /// The encoding to answer in: G2 when the request named its app, else the route's own (`.g1` or `.g0`).
    package func wireFormat(_ routeFormat: WireFormat) -> WireFormat {
        productId == nil ? routeFormat : .g2
    }

    /// The app of a G2-only route (`/v1/posts/geolocation` …); 421 without one.
    package func requireProductId() throws -> String {
        guard let productId else { throw APIError.invalidProductId() }
        return productId
    }
}
