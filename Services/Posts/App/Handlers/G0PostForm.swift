import Foundation
import Hummingbird
import NIOCore
import SNSPlatform

/// The multipart body of a G0 (2023) post create or edit (`POST /post`, `PUT /post/{id}`; API conventions §4, §8):
/// text parts `title`, `content`, `content1`…`content5`, `product_id` (each optional; Mobbie's edit sends only
/// `content2`) and image parts `file`, repeated once per image. It becomes the same `PostBody` a G1 client
/// sends as JSON — a part that is absent keeps the field on edit, as an absent JSON key does — plus the images,
/// which the handler hands to media before writing the post.
///
/// The body is read up to a bound (`maxFiles` images of `maxFileBytes` plus the text parts): anything larger is
/// a 400 before parsing, more than `maxFiles` images or one over `maxFileBytes` too (API conventions §10.7; media sniffs
/// and limits each image again). Unknown parts are ignored; empty `file` parts are skipped.
struct G0PostForm: Sendable {
    var body = PostBody()
    var images: [ByteBuffer] = []

    static let fileField = "file"
    static let maxTextBytes = 64 * 1024
    static let textFields: Set<String> = [
        "title", "content", "content1", "content2", "content3", "content4", "content5", "product_id",
    ]

    static func read(_ request: Request, maxFiles: Int, maxFileBytes: Int) async throws -> G0PostForm {
        let limit = maxFiles * maxFileBytes + textFields.count * maxTextBytes + 64 * 1024
        let form = try await BufferedMultipartForm.read(
            request, limit: limit, tooLarge: "파일이 제한 사항에 맞지 않습니다. (at most \(maxFiles) files of \(maxFileBytes) bytes)")
        return try make(form, maxFiles: maxFiles, maxFileBytes: maxFileBytes)
    }

    static func parse(_ collected: ByteBuffer, boundary: String, maxFiles: Int, maxFileBytes: Int) throws -> G0PostForm
    {
        try make(
            try BufferedMultipartForm.parse(collected, boundary: boundary), maxFiles: maxFiles,
            maxFileBytes: maxFileBytes)
    }

    private static func make(_ multipart: BufferedMultipartForm, maxFiles: Int, maxFileBytes: Int) throws -> G0PostForm
    {
        var form = G0PostForm()
        for part in multipart.parts {
            guard let name = part.name else { continue }
            if name == fileField {
                guard part.body.readableBytes > 0 else { continue }
                guard part.body.readableBytes <= maxFileBytes else {
                    throw APIError.badRequest("파일이 제한 사항에 맞지 않습니다. (a file is larger than \(maxFileBytes) bytes)")
                }
                form.images.append(part.body)
                guard form.images.count <= maxFiles else {
                    throw APIError.badRequest("파일은 최대 \(maxFiles)개까지 첨부할 수 있습니다. (at most \(maxFiles) files)")
                }
                continue
            }
            guard textFields.contains(name) else { continue }
            guard let text = part.text(maxBytes: maxTextBytes) else {
                throw APIError.badRequest("\(name) 값이 올바르지 않습니다. (invalid text field)")
            }
            form.body.set(name, to: text)
        }
        return form
    }
}
