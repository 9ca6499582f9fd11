import HTTPTypes
import Hummingbird
import Logging
import SNSPlatform

/// Builds the auth service: accounts, credentials, refresh-token sessions, JWKS (API conventions §2.1, §10.3), federated
/// sign-in with Firebase, Apple and Kakao (decision 0012), and the
/// profile's write model (nick, phone, birthday, image), edited through the internal `PUT /internal/v1/profile`.
package func buildApplication(configuration: AuthConfiguration, logger: Logger) async throws -> some ApplicationProtocol
{
    let mediaPaths = try MediaPathSigner(secret: configuration.mediaSigningKey)
    let platform = try await ServicePlatform(
        configuration: configuration.platform, schema: configuration.schema,
        migrations: AuthMigrations.all(schema: try SQLIdentifier(configuration.schema)), logger: logger)
    let signer = try await AccessTokenSigner(privateKeyPEM: configuration.jwtPrivateKeyPEM)
    guard platform.verifier.publicKeys.contains(where: { AccessTokenKeys.keyID(of: $0) == signer.keyID }) else {
        throw ConfigurationError(
            variable: "SNS_JWT_PUBLIC_KEY", reason: "does not contain the public key of SNS_JWT_PRIVATE_KEY")
    }
    let hasher = PasswordHasher(cost: configuration.bcryptCost)
    let store = AccountStore(client: platform.postgres)
    let deps = AuthDependencies(
        configuration: configuration, store: store, identities: IdentityStore(client: platform.postgres),
        identityProviders: IdentityProviders(configuration: configuration.federation),
        profiles: ProfileStore(client: platform.postgres),
        rules: AccountRules(passwordMinLength: configuration.passwordMinLength),
        hasher: hasher, signer: signer, verifier: platform.verifier, mediaPaths: mediaPaths, outbox: platform.outbox,
        postgres: platform.postgres, dummyPasswordHash: try await hasher.dummyHash())

    let router = platform.makeRouter()
    router.get("/.well-known/jwks.json", use: JWKSHandler(deps: deps).handle)
    // The use cases (Domain/), then the routes that decode, call them and encode in their API generation.
    let (accounts, sessions) = (Accounts(deps: deps), Sessions(deps: deps))
    let g1 = AccountHandlers(accounts: accounts, sessions: sessions)
    router.post("/v1/users/join", use: g1.join)
    router.post("/v1/validation/email", use: EmailValidationHandler(deps: deps).handle)
    router.post("/v1/users/validation/email", use: EmailValidationHandler(deps: deps).handle)  // G2's path
    router.post("/v1/users/login", use: g1.login)
    router.get("/v1/auth/refresh", use: g1.refresh)
    // G0 (2023, no prefix; decision 0011): the same handlers in the G0 encoding.
    let g0 = AccountHandlers(accounts: accounts, sessions: sessions, format: .g0)
    router.post("/join", use: g0.join)
    router.post("/validation/email", use: EmailValidationHandler(deps: deps).handle)
    router.post("/login", use: g0.login)
    router.get("/refresh", use: g0.refresh)
    // Federated sign-in (decision 0012): the provider's token in, the same session as an email login out.
    router.post("/v1/users/login/firebase", use: FederatedLoginHandler(deps: deps, provider: .firebase).handle)
    router.post("/v1/users/login/apple", use: FederatedLoginHandler(deps: deps, provider: .apple).handle)
    router.post("/v1/users/login/kakao", use: FederatedLoginHandler(deps: deps, provider: .kakao).handle)

    let authenticated = router.group().add(
        middleware: AuthenticationMiddleware(verifier: platform.verifier) { user in
            try await store.isActive(userId: user.userId, sessionId: user.sessionId, logger: logger)
        })
    authenticated.get("/v1/users/withdraw", use: g1.withdraw)
    authenticated.post("/v1/users/logout", use: LogoutHandler(deps: deps).handle)
    authenticated.get("/withdraw", use: g0.withdraw)
    authenticated.post("/withdraw", use: g0.withdraw)
    // Internal: called by the social service for the public profile edit; the gateway answers 444 for /internal/.
    authenticated.put("/internal/v1/profile", use: ProfileUpdateHandler(deps: deps).handle)

    return platform.makeApplication(router: router)
}
