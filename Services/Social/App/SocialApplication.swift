import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// Builds the social graph service: follows, profiles (reads, and edits carried out through auth and media),
/// user search and rankings, with projections of user and post events (API conventions §2.2, §2.5; decision 0006).
package func buildApplication(configuration: SocialConfiguration, logger: Logger) async throws
    -> some ApplicationProtocol
{
    let schema = try SQLIdentifier(configuration.schema)
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: schema.name, migrations: SocialMigrations.all(schema: schema),
        logger: logger)
    let store = SocialStore(client: platform.postgres, schema: schema)
    let client = InternalClient(
        authURL: configuration.authURL, mediaURL: configuration.mediaURL,
        apiKey: configuration.platform.apiKey, timeout: configuration.internalTimeout)
    let deps = SocialDependencies(
        store: store, outbox: platform.outbox, postgres: platform.postgres, schema: schema,
        profiles: Profiles(
            store: store, client: client, postgres: platform.postgres, schema: schema,
            maxImageBytes: configuration.maxProfileImageBytes),
        rankings: RankingQueries(client: platform.postgres, schema: schema))

    let router = platform.makeRouter()
    // One authentication for the G1 and the G0 routes: the token, and the account still active.
    let authentication = AuthenticationMiddleware(verifier: platform.verifier) { user in
        try await store.isActive(userId: user.userId, logger: logger)
    }
    let api = router.group("v1").add(middleware: authentication)
    let followChanges = Follows(deps: deps)
    let follows = FollowHandlers(follows: followChanges)
    let profiles = ProfileHandlers(deps: deps)
    let lookups = SearchAndRankingHandlers(deps: deps)
    api.post("follow/:user_id", use: follows.follow)
    api.delete("follow/:user_id", use: follows.unfollow)
    api.get("users/me/profile", use: profiles.me)
    api.put("users/me/profile", use: profiles.update)
    api.post("users/me/nick/random", use: profiles.randomNick)
    api.get("users/search", use: lookups.search)
    api.get("users/:user_id/profile", use: profiles.other)
    api.get("rankings/posts", use: lookups.posts)
    api.get("rankings/users", use: lookups.users)
    api.get("rankings/hashtags", use: lookups.hashtags)

    // G0 (2023, no prefix; API conventions §4, decision 0011): the same handlers in the G0 encoding.
    let g0 = router.group().add(middleware: authentication)
    let g0Follows = FollowHandlers(follows: followChanges, format: .g0)
    let g0Profiles = ProfileHandlers(deps: deps, format: .g0)
    g0.post("follow/:user_id", use: g0Follows.follow)
    g0.delete("follow/:user_id", use: g0Follows.unfollow)
    g0.get("profile/me", use: g0Profiles.me)
    g0.put("profile/me", use: g0Profiles.update)
    g0.get("profile/:user_id", use: g0Profiles.other)

    let projections = try platform.makeConsumer(
        SystemCatalog.social.consumers[0], of: SystemCatalog.social, handler: SocialProjection(schema: schema))
    return platform.makeApplication(router: router, consumers: configuration.consumesEvents ? [projections] : [])
}
