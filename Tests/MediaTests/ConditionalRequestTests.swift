import SNSPlatform
import Testing

@testable import MediaService

@Suite("Range, If-None-Match and multipart header parsing")
struct ConditionalRequestTests {
    @Test func ranges() {
        let size = 1000
        #expect(ConditionalRequest.range(nil, size: size) == .whole)
        #expect(ConditionalRequest.range("bytes=0-0", size: size) == .partial(0...0))
        #expect(ConditionalRequest.range("bytes=0-999", size: size) == .partial(0...999))
        #expect(ConditionalRequest.range("bytes=0-5000", size: size) == .partial(0...999))
        #expect(ConditionalRequest.range("bytes=990-", size: size) == .partial(990...999))
        #expect(ConditionalRequest.range("bytes=-10", size: size) == .partial(990...999))
        #expect(ConditionalRequest.range("bytes=-5000", size: size) == .partial(0...999))
        #expect(ConditionalRequest.range("Bytes = 5-6", size: size) == .whole, "spaces around '=' are not allowed")
        #expect(ConditionalRequest.range("BYTES=5-6", size: size) == .partial(5...6), "the unit is case-insensitive")
        #expect(ConditionalRequest.range("bytes=1000-", size: size) == .unsatisfiable)
        #expect(ConditionalRequest.range("bytes=99999999999999999999999-", size: size) == .unsatisfiable)
        #expect(ConditionalRequest.range("bytes=0-99999999999999999999999", size: size) == .partial(0...999))
        #expect(ConditionalRequest.range("bytes=-0", size: size) == .unsatisfiable)
        for malformed in ["bytes=0-1,2-3", "bytes=5-4", "bytes=x-", "bytes=-", "bytes", "pages=0-1", "bytes=0x10-"] {
            #expect(ConditionalRequest.range(malformed, size: size) == .whole, "\(malformed)")
        }
    }

    @Test func ifNoneMatch() {
        let etag = "abc"
        #expect(ConditionalRequest.noneMatchHits("\"abc\"", etag: etag))
        #expect(ConditionalRequest.noneMatchHits("W/\"abc\"", etag: etag))
        #expect(ConditionalRequest.noneMatchHits("\"x\", \"abc\"", etag: etag))
        #expect(ConditionalRequest.noneMatchHits("*", etag: etag))
        #expect(!ConditionalRequest.noneMatchHits("\"abcd\"", etag: etag))
        #expect(!ConditionalRequest.noneMatchHits("abc", etag: etag))
        #expect(!ConditionalRequest.noneMatchHits(nil, etag: etag))
    }

    @Test func multipartHeaders() {
        #expect(
            HeaderParameters.multipartBoundary(contentType: "multipart/form-data; boundary=alamofire.boundary.1a2b")
                == "alamofire.boundary.1a2b")
        #expect(HeaderParameters.multipartBoundary(contentType: "Multipart/Form-Data;boundary=\"a b;c\"") == "a b;c")
        #expect(HeaderParameters.multipartBoundary(contentType: "multipart/form-data") == nil)
        #expect(HeaderParameters.multipartBoundary(contentType: "multipart/mixed; boundary=x") == nil)
        #expect(
            HeaderParameters.multipartBoundary(
                contentType: "multipart/form-data; boundary=" + String(repeating: "x", count: 71)) == nil)
        let disposition = HeaderParameters("form-data; name=\"files\"; filename=\"a \\\"b\\\"; c.jpg\"")
        #expect(disposition.value == "form-data")
        #expect(disposition.parameters["name"] == "files")
        #expect(disposition.parameters["filename"] == "a \"b\"; c.jpg")
    }
}
