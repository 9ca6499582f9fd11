import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import PostsService

/// Cursor paging (API conventions §6, §10.4).
@Suite("Cursor paging")
struct PagingTests {
    @Test func firstPageWithMissingOrEmptyNextAndZeroAtTheEnd() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let product = TestEnvironment.unique("page")
            var created: [String] = []
            for index in 0..<12 {
                created.append(
                    try await api.createPost(as: alice, #"{"product_id":"\#(product)","title":"\#(index)"}"#).string(
                        "post_id")!)
            }
            let newestFirst = Array(created.reversed())

            let missing = try await api.send(.get, "/v1/posts?product_id=\(product)", as: alice)
            #expect(missing.postIds == Array(newestFirst.prefix(10)), "default limit 10")
            #expect(try missing.json.keys == ["data", "next_cursor"])
            let empty = try await api.send(.get, "/v1/posts?next=&limit=5&product_id=\(product)", as: alice)
            #expect(empty.postIds == Array(newestFirst.prefix(5)))
            let cursor = try #require(empty.nextCursor)
            #expect(cursor != "0")
            let second = try await api.send(.get, "/v1/posts?next=\(cursor)&limit=5&product_id=\(product)", as: alice)
            #expect(second.postIds == Array(newestFirst[5..<10]))
            let third = try await api.send(
                .get, "/v1/posts?next=\(second.nextCursor!)&limit=5&product_id=\(product)", as: alice)
            #expect(third.postIds == Array(newestFirst[10..<12]))
            #expect(third.nextCursor == "0")

            // Exactly `limit` items left: the page that holds them already says "0".
            let exact = try await api.send(.get, "/v1/posts?limit=12&product_id=\(product)", as: alice)
            #expect(exact.postIds.count == 12)
            #expect(exact.nextCursor == "0")
            // Over the maximum is clamped, not an error (KeyCat asks for 10 000 and never pages).
            #expect(try await api.send(.get, "/v1/posts?limit=10000&product_id=\(product)", as: alice).status == 200)

            let byUser = try await api.send(
                .get, "/v1/posts/users/\(alice.userId)?limit=3&product_id=\(product)", as: alice)
            #expect(byUser.postIds == Array(newestFirst.prefix(3)))
        }
    }

    /// Apps that never page (KeyCat `limit=10000`, DevCommunity and Runwithu `limit=1000`) get more than the old
    /// maximum of 100 in one answer (decision 0042).
    @Test func aPageHoldsMoreThanAHundredPosts() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let product = TestEnvironment.unique("big")
            var created: [String] = []
            for index in 0..<120 {
                created.append(
                    try await api.createPost(as: alice, #"{"product_id":"\#(product)","title":"\#(index)"}"#).string(
                        "post_id")!)
            }
            let all = try await api.send(.get, "/v1/posts?next=&limit=10000&product_id=\(product)", as: alice)
            #expect(all.postIds == Array(created.reversed()))
            #expect(all.nextCursor == "0")
            let byUser = try await api.send(
                .get, "/v1/posts/users/\(alice.userId)?limit=1000&product_id=\(product)", as: alice)
            #expect(byUser.postIds.count == 120)
        }
    }

    /// Three writers keep inserting while a reader pages through: every post that existed when the reader
    /// started appears exactly once, in order, and the reader never sees a duplicate. (Posts written during the
    /// scroll are newer than its start; they show at the top on the next refresh — decision 0004.)
    @Test func noItemSkippedOrRepeatedWhileOthersWrite() async throws {
        try await withPostsService { api in
            let alice = try await api.user()
            let product = TestEnvironment.unique("race")
            var existing: [String] = []
            for _ in 0..<30 {
                existing.append(
                    try await api.createPost(as: alice, #"{"product_id":"\#(product)"}"#).string("post_id")!)
            }

            let writer = Task {
                try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<3 {
                        group.addTask {
                            var written = 0
                            for _ in 0..<10 {
                                if try await api.send(
                                    .post, "/v1/posts", as: alice, json: #"{"product_id":"\#(product)"}"#
                                ).status == 200 {
                                    written += 1
                                }
                            }
                            return written
                        }
                    }
                    return try await group.reduce(0, +)
                }
            }
            var seen: [String] = []
            var next = ""
            repeat {
                let page = try await api.send(.get, "/v1/posts?next=\(next)&limit=4&product_id=\(product)", as: alice)
                #expect(page.status == 200)
                seen += page.postIds
                next = page.nextCursor ?? "0"
                // Interleave with the writer.
                await Task.yield()
            } while next != "0"
            let written = try await writer.value
            #expect(written == 30)
            #expect(Set(seen).count == seen.count, "no post repeated")
            let existingSeen = seen.filter { existing.contains($0) }
            #expect(existingSeen == Array(existing.reversed()), "every pre-existing post exactly once, newest first")
        }
    }

    @Test func cursorsAreOpaqueAndRoundTrip() {
        #expect(Cursor.decode(Cursor.encode(42)) == 42)
        #expect(Cursor.decode("0") == nil)
        #expect(Cursor.decode("42") == nil)
        #expect(Cursor.decode(String(repeating: "a", count: 100)) == nil)
    }

    /// The digits-only fast path and the trimming path agree: blanks around the digits are allowed, anything else is
    /// 400, large values are clamped, nothing means the default.
    @Test func limitParsing() throws {
        #expect(try Page.parseLimit(nil) == Page.defaultLimit)
        #expect(try Page.parseLimit("") == Page.defaultLimit)
        #expect(try Page.parseLimit("   ") == Page.defaultLimit)
        #expect(try Page.parseLimit("7") == 7)
        #expect(try Page.parseLimit("007") == 7)
        #expect(try Page.parseLimit(" 7 ") == 7)
        #expect(try Page.parseLimit("\u{3000}7") == 7, "Unicode blanks too")
        #expect(try Page.parseLimit("100") == 100)
        #expect(try Page.parseLimit("1000") == 1000)
        #expect(Page.maxLimit == 1000)
        #expect(try Page.parseLimit("1001") == Page.maxLimit)
        #expect(try Page.parseLimit("999999999999999999") == Page.maxLimit)
        #expect(try Page.parseLimit("99999999999999999999999") == Page.maxLimit, "more digits than an Int holds")
        for bad in ["0", "000", "-1", "+5", "1.5", "abc", "5a", "٣"] {
            #expect(throws: APIError.self, "\(bad)") { try Page.parseLimit(bad) }
        }
    }
}
