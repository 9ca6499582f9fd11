import Foundation
import Hummingbird
import NIOCore
import SNSPlatform

/// The multipart body of `PUT /v1/users/me/profile` (API conventions §2.2 #7, §8): text fields `nick`, `phoneNum`,
/// `birthDay`, file field `profile`, each optional. The body is read up to a bound (one image of at most
/// `maxImageBytes` plus the text fields); anything larger is a 400 before parsing. Unknown fields are ignored.
struct ProfileForm: Sendable {
    var nick: String?
    var phoneNum: String?
    var birthDay: String?
    var image: ByteBuffer?

    /// phoneNum and birthDay hold up to 2 000 characters of free text (DateDay: a self-introduction), 3 bytes each.
    static let maxTextBytes = 8 * 1024

    /// The text fields as JSON (`{nick?, phoneNum?, birthDay?}`), how G2 apps edit a profile (decision 0021); G0 and
    /// G1 edits stay multipart (JSON is 400 there, as before).
    struct JSONFields: Decodable, Sendable {
        var nick: String?
        var phoneNum: String?
        var birthDay: String?
    }

    static func read(_ request: Request, maxImageBytes: Int, context: APIRequestContext) async throws -> ProfileForm {
        if context.productId != nil, let type = request.headers[.contentType],
            HeaderParameters(type).value == "application/json"
        {
            let fields = try await request.decodeJSON(as: JSONFields.self, context: context)
            for (name, value) in [("nick", fields.nick), ("phoneNum", fields.phoneNum), ("birthDay", fields.birthDay)]
            where (value?.utf8.count ?? 0) > maxTextBytes {
                throw APIError.badRequest("\(name) 값이 너무 깁니다. (\(name) too long)")
            }
            return ProfileForm(nick: fields.nick, phoneNum: fields.phoneNum, birthDay: fields.birthDay)
        }
        let form = try await BufferedMultipartForm.read(
            request, limit: maxImageBytes + 64 * 1024,
            tooLarge: "파일이 제한 사항에 맞지 않습니다. (profile image larger than \(maxImageBytes) bytes)")
        return try make(form)
    }

    static func parse(_ body: ByteBuffer, boundary: String) throws -> ProfileForm {
        try make(try BufferedMultipartForm.parse(body, boundary: boundary))
    }

    private static func make(_ multipart: BufferedMultipartForm) throws -> ProfileForm {
        var form = ProfileForm()
        for part in multipart.parts {
            switch part.name {
            case "profile":
                form.image = part.body
            case "nick", "phoneNum", "birthDay":
                guard let text = part.text(maxBytes: maxTextBytes) else {
                    throw APIError.badRequest("\(part.name ?? "") 값이 올바르지 않습니다. (invalid text field)")
                }
                switch part.name {
                case "nick": form.nick = text
                case "phoneNum": form.phoneNum = text
                default: form.birthDay = text
                }
            default:
                continue
            }
        }
        return form
    }
}
