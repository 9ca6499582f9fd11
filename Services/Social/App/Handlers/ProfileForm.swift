import Foundation
import Hummingbird
import MultipartKit
import NIOCore
import SNSPlatform

/// The multipart body of `PUT /v1/users/me/profile` (contract §2.2 #7, §8): text fields `nick`, `phoneNum`,
/// `birthDay`, file field `profile`, each optional. The body is read up to a bound (one image of at most
/// `maxImageBytes` plus the text fields); anything larger is a 400 before parsing. Unknown fields are ignored.
struct ProfileForm: Sendable {
    var nick: String?
    var phoneNum: String?
    var birthDay: String?
    var image: ByteBuffer?

    static let maxTextBytes = 4 * 1024

    static func read(_ request: Request, maxImageBytes: Int) async throws -> ProfileForm {
        guard let boundary = HeaderParameters.multipartBoundary(contentType: request.headers[.contentType]) else {
            throw APIError.badRequest("multipart/form-data 형식이어야 합니다. (expected multipart/form-data with a boundary)")
        }
        let limit = maxImageBytes + 64 * 1024
        let body: ByteBuffer
        do {
            body = try await request.body.collect(upTo: limit)
        } catch {
            throw APIError.badRequest("파일이 제한 사항에 맞지 않습니다. (profile image larger than \(maxImageBytes) bytes)")
        }
        return try parse(body, boundary: boundary)
    }

    static func parse(_ body: ByteBuffer, boundary: String) throws -> ProfileForm {
        final class Collector {
            var parts: [(name: String?, body: ByteBuffer)] = []
            var name: String?
            var current = ByteBuffer()
        }
        let collector = Collector()
        let parser = MultipartParser(boundary: boundary)
        parser.onHeader = { field, value in
            if field.lowercased() == "content-disposition" { collector.name = HeaderParameters(value).parameters["name"] }
        }
        parser.onBody = { chunk in collector.current.writeBuffer(&chunk) }
        parser.onPartComplete = {
            collector.parts.append((collector.name, collector.current))
            collector.name = nil
            collector.current = ByteBuffer()
        }
        var parserGuard = MultipartParserGuard(boundary: boundary)  // MultipartKit traps on some bytes: see there
        try parserGuard.check(body)
        do {
            try parser.execute(body)
        } catch {
            throw APIError.badRequest("잘못된 multipart 본문입니다. (malformed multipart body)")
        }
        var form = ProfileForm()
        for part in collector.parts {
            switch part.name {
            case "profile":
                form.image = part.body
            case "nick", "phoneNum", "birthDay":
                guard part.body.readableBytes <= maxTextBytes, let text = part.body.getString(at: part.body.readerIndex, length: part.body.readableBytes) else {
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
