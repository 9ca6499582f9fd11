// Call counters for assertions, as one snapshot.

/// Counters of calls the server received, and the webhook deliveries it made.
package struct PortOneStatistics: Sendable, Equatable {
    /// `POST /users/getToken` calls per imp_key named in the body.
    package var tokenRequests: [String: Int]
    /// `GET /payments/{imp_uid}` calls per imp_uid.
    package var lookups: [String: Int]
    /// `POST /payments/cancel` calls per (resolved) imp_uid.
    package var cancelRequests: [String: Int]
    package var webhookDeliveries: [PortOneWebhookDelivery]
}

extension PortOneLedger {
    package func statistics() -> PortOneStatistics {
        PortOneStatistics(
            tokenRequests: tokenRequestCounts,
            lookups: lookupCounts,
            cancelRequests: cancelRequestCounts,
            webhookDeliveries: deliveries
        )
    }
}
