import HTTPTypes
import Metrics
import Synchronization

/// The request metrics every service exports, under the names and labels of Hummingbird's `MetricsMiddleware`
/// (the dashboards and alerts use them): `hb_requests` and `http_server_request_duration` by route, method and
/// status, `http_server_active_requests` by method. Recorded by `EdgeMiddleware` once the answer is ready: the
/// API's bodies are buffered; a streamed one (an image download) is written after the duration is taken.
///
/// The metric objects are made once per label set and kept: making one asks the metrics backend to look it up.
final class RequestMetrics: Sendable {
    struct Endpoint: Hashable {
        let route: String
        let method: HTTPRequest.Method
        let status: Int
    }

    struct EndpointMetrics: Sendable {
        let requests: Counter
        let duration: Timer

        init(_ endpoint: Endpoint) {
            let dimensions = [
                ("http.route", endpoint.route), ("http.request.method", endpoint.method.rawValue),
                ("http.response.status_code", String(endpoint.status)),
            ]
            requests = Counter(label: "hb.requests", dimensions: dimensions)
            duration = Timer(
                label: "http.server.request.duration", dimensions: dimensions, preferredDisplayUnit: .seconds)
        }
    }

    private let endpoints = Mutex<[Endpoint: EndpointMetrics]>([:])
    private let active = Mutex<[HTTPRequest.Method: Meter]>([:])

    /// The in-flight gauge of `method`, to increment on arrival and decrement once answered.
    func activeRequests(_ method: HTTPRequest.Method) -> Meter {
        active.withLock { meters in
            if let meter = meters[method] { return meter }
            let meter = Meter(
                label: "http.server.active_requests", dimensions: [("http.request.method", method.rawValue)])
            meters[method] = meter
            return meter
        }
    }

    func record(_ endpoint: Endpoint, nanoseconds: Int64) {
        let metrics = endpoints.withLock { known in
            if let metrics = known[endpoint] { return metrics }
            let metrics = EndpointMetrics(endpoint)
            known[endpoint] = metrics
            return metrics
        }
        metrics.requests.increment()
        metrics.duration.recordNanoseconds(nanoseconds)
    }
}
