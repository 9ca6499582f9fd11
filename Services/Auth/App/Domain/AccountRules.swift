import SNSPlatform

/// Input rules for accounts (API conventions §10.6), in the order clients see them:
/// 400 for a missing or malformed email/password/field, 402 for whitespace in the nick.
struct AccountRules: Sendable {
    var passwordMinLength: Int
    static let passwordMaxBytes = 72  // bcrypt ignores anything beyond 72 bytes
    /// Generous on purpose: Mobbie signs up with `UUID().uuidString` (36 characters) as the nick. The bound only
    /// keeps rows and list answers small (docs/decisions/0013-input-limits.md).
    static let nickMaxLength = 100
    static let emailMaxLength = 254
    /// DateDay keeps a multi-line self-introduction in `phoneNum`: these fields are free text (newlines and tabs
    /// allowed), bounded only to keep profiles small.
    static let optionalFieldMaxLength = 2_000

    func validateEmail(_ email: String) throws {
        guard Self.isValidEmail(email) else {
            throw APIError.badRequest("이메일 형식이 올바르지 않습니다. (invalid email address)")
        }
    }

    func validatePassword(_ password: String) throws {
        guard password.count >= passwordMinLength else {
            throw APIError.badRequest(
                "비밀번호는 \(passwordMinLength)자 이상이어야 합니다. (password must have at least \(passwordMinLength) characters)")
        }
        guard password.utf8.count <= Self.passwordMaxBytes else {
            throw APIError.badRequest("비밀번호가 너무 깁니다. (password must be at most \(Self.passwordMaxBytes) bytes)")
        }
        guard !password.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) else {
            throw APIError.badRequest("비밀번호에 사용할 수 없는 문자가 있습니다. (password contains control characters)")
        }
    }

    func validateNick(_ nick: String) throws {
        guard !nick.isEmpty else { throw APIError.badRequest("닉네임을 입력해주세요. (nick is required)") }
        guard !nick.unicodeScalars.contains(where: { $0.properties.isWhitespace }) else {
            throw APIError.nickWhitespace()
        }
        guard nick.count <= Self.nickMaxLength else {
            throw APIError.badRequest(
                "닉네임은 \(Self.nickMaxLength)자 이하여야 합니다. (nick must have at most \(Self.nickMaxLength) characters)")
        }
        guard
            !nick.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control
                    || $0.properties.generalCategory == .format && $0 != "\u{200D}"
            })
        else {
            throw APIError.badRequest("닉네임에 사용할 수 없는 문자가 있습니다. (nick contains invalid characters)")
        }
    }

    /// phoneNum / birthDay: optional free text (apps store other things in them), no control characters but
    /// line breaks and tabs. Empty counts as absent.
    func normalizeOptional(_ value: String?, field: String) throws -> String? {
        guard let value, !value.isEmpty else { return nil }
        guard value.count <= Self.optionalFieldMaxLength,
            !value.unicodeScalars.contains(where: {
                $0.properties.generalCategory == .control && !"\n\r\t".unicodeScalars.contains($0)
            })
        else { throw APIError.badRequest("\(field) 값이 올바르지 않습니다. (invalid \(field))") }
        return value
    }

    /// A pragmatic address check: one `@`, a non-empty local part of at most 64 bytes, a dotted domain of
    /// letters, digits and hyphens, no whitespace or control characters.
    static func isValidEmail(_ email: String) -> Bool {
        guard email.utf8.count <= emailMaxLength else { return false }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let local = parts[0], domain = parts[1]
        guard !local.isEmpty, local.utf8.count <= 64,
            !local.unicodeScalars.contains(where: {
                $0.properties.isWhitespace || $0.properties.generalCategory == .control
                    || "()<>,;:\\\"[]".unicodeScalars.contains($0)
            })
        else { return false }
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        guard labels.count >= 2 else { return false }
        // `.invalid` (RFC 2606) never receives mail; federated accounts' synthetic emails use it (decision 0012).
        guard labels.last?.lowercased() != "invalid" else { return false }
        return labels.allSatisfy { label in
            !label.isEmpty && label.count <= 63 && !label.hasPrefix("-") && !label.hasSuffix("-")
                && label.unicodeScalars.allSatisfy {
                    $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "-"
                }
        }
    }
}
