import Crypto
import Foundation

/// The identity providers auth accepts for sign-in (API conventions §0, G2, and the SeSAC study app's Firebase).
enum FederatedProvider: String, Sendable, CaseIterable {
    case firebase, apple, kakao

    var displayName: String {
        switch self {
        case .firebase: "Firebase"
        case .apple: "Apple"
        case .kakao: "Kakao"
        }
    }

    /// The variable that switches the provider on.
    var configurationVariable: String {
        switch self {
        case .firebase: "SNS_FIREBASE_PROJECT_ID"
        case .apple: "SNS_APPLE_CLIENT_IDS"
        case .kakao: "SNS_KAKAO_APP_ID"
        }
    }

    /// The email of an account created by this provider: `<user_id>@<provider>.invalid`. `.invalid` is reserved
    /// (RFC 2606) and refused by join, so it never collides with an email account and never receives mail.
    func syntheticEmail(userId: String) -> String {
        "\(userId)@\(rawValue).invalid"
    }
}

/// A user the provider vouched for.
struct VerifiedIdentity: Sendable {
    var provider: FederatedProvider
    /// The provider's stable user id (`sub`, or Kakao's numeric id).
    var subject: String
    /// Firebase phone authentication's verified number (E.164), if the token carries a plausible one.
    var phoneNumber: String?
    /// When the user authenticated with the provider (`auth_time`, else `iat`); nil for Kakao.
    var signedInAt: Date?
    /// SHA-256 of the credential presented (ID token or Kakao access token), kept with the session it opened so a
    /// credential that signed into a since-withdrawn account is refused when it comes again.
    var credentialHash: [UInt8]

    static func hash(_ credential: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(credential.utf8)))
    }

    /// `+` and 4–15 digits (E.164), else nil.
    static func plausiblePhoneNumber(_ value: String?) -> String? {
        guard let value, value.hasPrefix("+"), (5...16).contains(value.count),
            value.dropFirst().allSatisfy({ $0.isASCII && $0.isNumber })
        else {
            return nil
        }
        return value
    }
}
