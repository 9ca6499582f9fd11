// Call counters for assertions, as one snapshot.

/// Counters of calls the server received, and the webhook deliveries it made.
public struct PortOneStatistics: Sendable, Equatable {
    /// `POST /users/getToken` calls per imp_key named in the body.
    public var tokenRequests: [String: Int]
    /// `GET /payments/{imp_uid}` calls per imp_uid.
    public var lookups: [String: Int]
    /// `POST /payments/cancel` calls per (resolved) imp_uid.
    public var cancelRequests: [String: Int]
    public var webhookDeliveries: [PortOneWebhookDelivery]
}

extension PortOneLedger {
    public func statistics() -> PortOneStatistics {
        PortOneStatistics(
            tokenRequests: tokenRequestCounts,
            lookups: lookupCounts,
            cancelRequests: cancelRequestCounts,
            webhookDeliveries: deliveries
        )
    }
}
