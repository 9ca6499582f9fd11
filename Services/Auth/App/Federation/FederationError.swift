import SNSPlatform

/// Why a federated sign-in failed. Each maps to one answer; none carries the token itself.
enum FederationError: Error, CustomStringConvertible {
    /// The token is not one we accept (malformed, signature, issuer, audience, times, subject): 401.
    case invalidToken(String)
    /// The provider refused the token (Kakao said it is unknown or expired, or issued to another app): 401.
    case rejected(String)
    /// The provider could not be asked (unreachable, timeout, 5xx, an answer we cannot read): 503.
    case providerUnavailable(String)

    var description: String {
        switch self {
        case .invalidToken(let reason): "invalid token: \(reason)"
        case .rejected(let reason): "rejected by the provider: \(reason)"
        case .providerUnavailable(let reason): "provider unavailable: \(reason)"
        }
    }

    var apiError: APIError {
        switch self {
        case .invalidToken(let reason):
            APIError.unauthorized("유효하지 않은 토큰입니다. (invalid identity token: \(reason))")
        case .rejected(let reason):
            APIError.unauthorized("인증 제공자가 토큰을 거부했습니다. (the identity provider rejected the token: \(reason))")
        case .providerUnavailable:
            APIError.unavailable(
                "인증 제공자에 연결할 수 없습니다. 잠시 후 다시 시도해주세요. (the identity provider is unavailable, try again)")
        }
    }
}
