import Testing

@testable import PostsService

/// The texts of the wrapped page statements (decision 0022).
@Suite("Reader-checked page statements")
struct ReaderCheckedPageTests {
    @Test func theReaderIsBoundAfterThePagesOwnParameters() {
        #expect(PageStatementTexts.highestParameter(in: "SELECT 1") == 0)
        #expect(PageStatementTexts.highestParameter(in: "WHERE a = $2 AND b < $1 LIMIT $12") == 12)
        #expect(AllPostsPage.checkedSQL.contains("u.user_id = $3 "))
        #expect(UserPostsOfProductPage.listSQL.contains("u.user_id = $5 "))
        #expect(OnePostPage.checkedSQL.contains("u.user_id = $2 "))
    }

    @Test func eachPageTypeHasItsOwnStatementNames() {
        let all = PageStatementTexts.of(AllPostsPage.self)
        let mine = PageStatementTexts.of(UserPostsPage.self)
        #expect(Set([all.name, all.checkedName, all.listName, mine.name, mine.checkedName, mine.listName]).count == 6)
        #expect(PageStatementTexts.of(AllPostsPage.self).listName == all.listName)
    }
}
