import PostgresNIO
import SNSPlatform

/// What the social handlers share.
struct SocialDependencies: Sendable {
    let store: SocialStore
    let outbox: Outbox
    let postgres: DatabasePool
    let schema: SQLIdentifier
    let profiles: Profiles
    let rankings: RankingQueries
}
