import AsyncHTTPClient
import Foundation
import Logging
import SNSPlatform

/// The configured identity providers. A provider that is not configured answers 400 naming its variable; a
/// token it refuses answers 401, a provider that cannot be asked 503.
struct IdentityProviders: Sendable {
    let firebase: IDTokenVerifier?
    let apple: IDTokenVerifier?
    let kakao: KakaoClient?

    init(configuration: FederationConfiguration, client: HTTPClient = .shared) {
        if let project = configuration.firebaseProjectId {
            firebase = IDTokenVerifier(
                issuer: FederationConfiguration.firebaseIssuerPrefix + project, audiences: [project],
                keys: JWKSCache(
                    url: configuration.firebaseJWKSURL, client: client, timeout: configuration.timeout,
                    minRefreshInterval: configuration.jwksMinRefreshInterval),
                requiresAuthTime: true)
        } else {
            firebase = nil
        }
        if !configuration.appleClientIds.isEmpty {
            apple = IDTokenVerifier(
                issuer: FederationConfiguration.appleIssuer, audiences: Set(configuration.appleClientIds),
                keys: JWKSCache(
                    url: configuration.appleJWKSURL, client: client, timeout: configuration.timeout,
                    minRefreshInterval: configuration.jwksMinRefreshInterval))
        } else {
            apple = nil
        }
        kakao = configuration.kakaoAppId.map {
            KakaoClient(baseURL: configuration.kakaoAPIURL, appId: $0, client: client, timeout: configuration.timeout)
        }
    }

    func isConfigured(_ provider: FederatedProvider) -> Bool {
        switch provider {
        case .firebase: firebase != nil
        case .apple: apple != nil
        case .kakao: kakao != nil
        }
    }

    /// 400 unless `provider` is configured.
    func requireConfigured(_ provider: FederatedProvider) throws {
        guard isConfigured(provider) else {
            throw APIError.badRequest(
                "\(provider.displayName) 로그인이 설정되지 않았습니다. (\(provider.displayName) sign-in is not configured on this server: set \(provider.configurationVariable))"
            )
        }
    }

    func verify(_ provider: FederatedProvider, credential: String, logger: Logger) async throws -> VerifiedIdentity {
        try requireConfigured(provider)
        do {
            switch provider {
            case .firebase, .apple:
                let verifier = provider == .firebase ? firebase! : apple!
                let claims = try await verifier.verify(credential, logger: logger)
                return VerifiedIdentity(
                    provider: provider, subject: claims.subject ?? "",
                    phoneNumber: provider == .firebase
                        ? VerifiedIdentity.plausiblePhoneNumber(claims.phoneNumber) : nil,
                    signedInAt: claims.signedInAt, credentialHash: VerifiedIdentity.hash(credential))
            case .kakao:
                let id = try await kakao!.verify(credential, logger: logger)
                return VerifiedIdentity(
                    provider: .kakao, subject: String(id), phoneNumber: nil, signedInAt: nil,
                    credentialHash: VerifiedIdentity.hash(credential))
            }
        } catch let error as FederationError {
            logger.info(
                "federated sign-in refused", metadata: ["provider": "\(provider.rawValue)", "reason": "\(error)"])
            throw error.apiError
        }
    }
}
