import PostgresNIO
import SNSPlatform

/// What the market handlers share.
struct MarketDependencies: Sendable {
    let store: MarketStore
    let verification: PaymentVerification
    /// When a claim left pending by an unreachable PortOne is first retried in the background.
    let reverifyDelay: Duration
}
