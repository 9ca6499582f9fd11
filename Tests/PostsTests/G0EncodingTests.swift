import Foundation
import Hummingbird
import SNSPlatform
import Testing

@testable import PostsService

/// The G0 (2023) encoding of posts (decision 0011) without a database: a §3.1 post re-spelled as a G0 post, and
/// the G0 multipart form read into the G1 `PostBody`.
@Suite("G0 post encoding and form")
struct G0EncodingTests {
    static let g1 = #"""
        {"post_id":"p1","product_id":"MobbieFeed","content":"hi #tag","content1":"익명","price":5,
         "createdAt":"2026-11-22T01:02:03.456Z","creator":{"user_id":"u1","nick":"n1","profileImage":"uploads/profiles/a.png"},
         "files":["uploads/posts/a.png"],"likes":["u2"],"likes2":["u3"],"buyers":["u4"],"hashTags":["tag"],
         "comments":[{"comment_id":"c1","content":"좋아요","createdAt":"2026-11-22T01:02:04.000Z","creator":{"user_id":"u2","nick":"n2"}}]}
        """#

    @Test func aG1PostIsRespelledAsG0() throws {
        let post = try G0Post(PostJSONText(text: Self.g1))
        let json = try #require(
            try JSONSerialization.jsonObject(with: APIJSON.encoder().encode(post)) as? [String: Any])
        #expect(
            Set(json.keys) == [
                "likes", "image", "hashTags", "comments", "_id", "creator", "time", "content", "content1", "product_id",
            ])
        #expect(json["_id"] as? String == "p1" && json["time"] as? String == "2026-11-22T01:02:03.456Z")
        #expect(json["image"] as? [String] == ["uploads/posts/a.png"] && json["likes"] as? [String] == ["u2"])
        let creator = try #require(json["creator"] as? [String: Any])
        #expect(
            creator as NSDictionary == ["_id": "u1", "nick": "n1", "profile": "uploads/profiles/a.png"] as NSDictionary)
        let comment = try #require((json["comments"] as? [[String: Any]])?.first)
        #expect(Set(comment.keys) == ["_id", "content", "time", "creator"])
        #expect(
            (comment["creator"] as? [String: Any]).map { Set($0.keys) } == ["_id", "nick"],
            "an unset profile is omitted")
    }

    static func form(_ parts: [(name: String, value: [UInt8], file: Bool)]) -> (ByteBuffer, String) {
        let boundary = "g0-test-boundary"
        var body = ""
        var bytes: [UInt8] = []
        for part in parts {
            body =
                "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
                + (part.file ? "; filename=\"x.jpg\"\r\nContent-Type: image/jpg" : "") + "\r\n\r\n"
            bytes += Array(body.utf8) + part.value + Array("\r\n".utf8)
        }
        bytes += Array("--\(boundary)--\r\n".utf8)
        return (ByteBuffer(bytes: bytes), boundary)
    }

    @Test func textPartsBecomeThePostBodyAndFilePartsTheImages() throws {
        let (body, boundary) = Self.form([
            ("product_id", Array("MobbieFeed".utf8), false), ("content2", Array("익명0".utf8), false),
            ("file", [1, 2, 3], true), ("file", [], true), ("unknown", Array("x".utf8), false), ("file", [4], true),
        ])
        let form = try G0PostForm.parse(body, boundary: boundary, maxFiles: 5, maxFileBytes: 10)
        #expect(form.body.productId.value == "MobbieFeed" && form.body.content2.value == "익명0")
        if case .absent = form.body.content1 {
        } else {
            Issue.record("a part that is not sent stays absent (kept on edit)")
        }
        if case .absent = form.body.files {} else { Issue.record("files are set only after media stored the images") }
        #expect(form.images.map { Array($0.readableBytesView) } == [[1, 2, 3], [4]], "empty file parts are skipped")
    }

    @Test func tooManyOrTooLargeImagesAreBadRequests() throws {
        let six = Self.form(Array(repeating: ("file", [1], true), count: 6))
        #expect(throws: APIError.self) { try G0PostForm.parse(six.0, boundary: six.1, maxFiles: 5, maxFileBytes: 10) }
        let large = Self.form([("file", Array(repeating: 7, count: 11), true)])
        #expect(throws: APIError.self) {
            try G0PostForm.parse(large.0, boundary: large.1, maxFiles: 5, maxFileBytes: 10)
        }
        let five = Self.form(Array(repeating: ("file", [1], true), count: 5))
        #expect(try G0PostForm.parse(five.0, boundary: five.1, maxFiles: 5, maxFileBytes: 10).images.count == 5)
    }
}
