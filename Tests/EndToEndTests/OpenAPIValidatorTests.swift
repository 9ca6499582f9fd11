import Foundation
import SNSTestSupport
import Testing

/// The validator the conformance tests rely on catches what it must (no stack needed), and the document is
/// consistent with the house rules: every operation names its id once, every key-protected operation documents
/// 420, every token-protected one 401 and 419, every error body is `{"message"}`.
@Suite("OpenAPI document and validator")
struct OpenAPIValidatorTests {
    let validator: OpenAPIValidator

    init() throws {
        validator = try OpenAPIValidator.repositoryDocument()
    }

    static let creator = #"{"user_id":"u1","nick":"n"}"#
    static let post = #"""
        {"post_id":"p1","product_id":"snapBook","title":"t","createdAt":"2024-05-02T08:46:31.607Z","creator":\#(creator),
         "files":[],"likes":["u2"],"likes2":[],"buyers":[],"hashTags":["책"],
         "comments":[{"comment_id":"c1","content":"hi","createdAt":"2024-05-02T08:46:31.607Z","creator":\#(creator)}]}
        """#

    func check(
        _ method: String, _ path: String, _ status: Int, _ body: String, contentType: String? = "application/json"
    ) -> [String] {
        validator.violations(
            method: method, path: path, status: status, contentType: contentType, body: Array(body.utf8))
    }

    @Test func aConformingPostPasses() {
        #expect(check("GET", "/v1/posts/p1", 200, Self.post) == [])
        #expect(check("GET", "/v1/posts?next=&limit=5", 200, #"{"data":[\#(Self.post)],"next_cursor":"0"}"#) == [])
        #expect(check("DELETE", "/v1/posts/p1", 200, "", contentType: nil) == [])
        #expect(check("GET", "/v1/posts/p1", 410, #"{"message":"gone"}"#) == [])
    }

    @Test func unknownPathsMethodsAndStatusesAreViolations() {
        #expect(
            check("POST", "/v1/posts", 500, #"{"message":"x"}"#).first?.hasPrefix(
                "status 500 not documented for POST /v1/posts") == true)
        #expect(check("PATCH", "/v1/posts", 200, "{}") == ["PATCH not documented for /v1/posts"])
        #expect(check("GET", "/v1/nowhere", 444, #"{"message":"x"}"#) == ["path /v1/nowhere not documented (GET)"])
        #expect(!check("GET", "/v1/posts", 200, Self.post, contentType: "text/html").isEmpty)
        #expect(!check("DELETE", "/v1/posts/p1", 200, #"{"message":"deleted"}"#).isEmpty, "documented without a body")
    }

    @Test func schemaViolationsAreFound() {
        let missing = check("GET", "/v1/posts/p1", 200, Self.post.replacingOccurrences(of: #""likes2":[],"#, with: ""))
        #expect(missing.contains { $0.hasSuffix(#"$: missing required key "likes2""#) }, "\(missing)")
        let extra = check(
            "GET", "/v1/posts/p1", 200,
            Self.post.replacingOccurrences(of: #""nick":"n"}"#, with: #""nick":"n","email":"e"}"#))
        #expect(extra.contains { $0.contains(#"$.creator: unexpected key "email""#) }, "\(extra)")
        let null = check(
            "GET", "/v1/posts/p1", 200, Self.post.replacingOccurrences(of: #""title":"t""#, with: #""title":null"#))
        #expect(null.contains { $0.contains("$.title: expected string, got null") }, "\(null)")
        let date = check(
            "GET", "/v1/posts/p1", 200, Self.post.replacingOccurrences(of: "08:46:31.607Z", with: "08:46:31Z"))
        #expect(date.count == 2, "both dates lack milliseconds: \(date)")
        let boolean = check("POST", "/v1/posts/p1/like", 200, #"{"like_status":1}"#)
        #expect(boolean.contains { $0.contains("$.like_status: expected boolean, got integer") }, "\(boolean)")
        let nested = check(
            "GET", "/v1/posts/p1", 200, Self.post.replacingOccurrences(of: #""content":"hi""#, with: #""content":7"#))
        #expect(nested.contains { $0.contains("$.comments[0].content: expected string") }, "\(nested)")
        #expect(!check("GET", "/v1/posts/p1", 410, #"{"message":"gone","code":1}"#).isEmpty)
        #expect(!check("GET", "/v1/posts/p1", 200, "not json").isEmpty)
    }

    @Test func literalSegmentsWinOverParameters() {
        #expect(
            validator.operation(method: "GET", path: "/v1/posts/hashtags?hashTag=a")?.operationId == "listHashtagPosts")
        #expect(validator.operation(method: "GET", path: "/v1/posts/abc")?.operationId == "getPost")
        #expect(validator.operation(method: "GET", path: "/v1/users/me/profile")?.operationId == "getMyProfile")
        #expect(validator.operation(method: "GET", path: "/v1/users/u1/profile")?.operationId == "getProfile")
        #expect(validator.operation(method: "GET", path: "/v1/posts/a/b/c") == nil)
    }

    @Test func theValidatorUnderstandsEveryConstraintTheDocumentUses() {
        #expect(validator.checker.unsupportedKeywords() == [])
    }

    @Test func documentFollowsTheHouseRules() throws {
        let ids = validator.operations.map(\.operationId)
        #expect(Set(ids).count == ids.count, "operationIds are unique")
        let paths = try #require(validator.document["paths"]?.object)
        let globalSecurity = validator.document["security"]
        for operation in validator.operations {
            let item = try #require(paths[operation.path.template]?[operation.method.lowercased()])
            let schemes = Set(
                (item["security"] ?? globalSecurity)?.array?.flatMap { $0.object?.keys.map { $0 } ?? [] } ?? [])
            let statuses = Set(operation.statuses)
            #expect(statuses.contains("200"), "\(operation): success is always 200")
            if schemes.contains("SesacKey") {
                #expect(statuses.contains("420"), "\(operation) needs SesacKey but does not document 420")
            }
            // (The refresh call takes the expired access token as its input: 419 is not an answer there.)
            if schemes.contains("AccessToken") && !schemes.contains("RefreshToken") {
                #expect(
                    statuses.isSuperset(of: ["401", "419"]),
                    "\(operation) needs a token but does not document 401 and 419")
            }
            for status in statuses where status.hasPrefix("4") || status.hasPrefix("5") {
                var response = try #require(item["responses"]?[status])
                if let reference = response["$ref"]?.string {
                    response = try #require(validator.checker.resolve(reference))
                }
                if status == "304" { continue }
                #expect(
                    response["content"]?["application/json"]?["schema"]
                        == .object(["$ref": .string("#/components/schemas/Message")]),
                    "\(operation) \(status): error bodies are {\"message\"}")
            }
            #expect(!statuses.contains("500"), "\(operation): a 500 is a bug, never part of the contract")
        }
    }
}
