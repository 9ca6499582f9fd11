import Foundation
import SNSPlatform
import SNSTestSupport
import Testing

@testable import SocialService

/// Contract §2.5 and §10.9.
@Suite("Follow")
struct FollowTests {
    @Test func followAndUnfollowWithTheContractsCodes() async throws {
        try await withSocialService { api in
            let me = try await api.user()
            let friend = try await api.user()
            let followed = try await api.send(.post, "/v1/follow/\(friend.userId)", as: me)
            #expect(followed.status == 200, "\(followed.text)")
            #expect(try followed.json.keys == ["nick", "opponent_nick", "following_status"])
            #expect(try followed.json.string("nick") == me.nick)
            #expect(try followed.json.string("opponent_nick") == friend.nick)
            #expect(try followed.json.bool("following_status") == true)
            #expect(try await api.send(.post, "/v1/follow/\(friend.userId)", as: me).status == 409)
            #expect(try await api.send(.post, "/v1/follow/\(me.userId)", as: me).status == 400)
            #expect(try await api.send(.post, "/v1/follow/\(ObjectID.generate())", as: me).status == 410)
            #expect(try await api.send(.post, "/v1/follow/\(friend.userId)", as: nil).status == 401)
            #expect(try await api.send(.post, "/v1/follow/\(friend.userId)", as: me, apiKey: .some(nil)).status == 420)

            let unfollowed = try await api.send(.delete, "/v1/follow/\(friend.userId)", as: me)
            #expect(unfollowed.status == 200)
            #expect(try unfollowed.json.bool("following_status") == false)
            #expect(try await api.send(.delete, "/v1/follow/\(friend.userId)", as: me).status == 410)

            let events = try await api.count(
                """
                SELECT count(*)::int FROM \(table: api.schema, "outbox") WHERE partition_key = \(me.userId)
                AND event_type IN ('user-followed', 'user-unfollowed')
                """)
            #expect(events == 2, "one event per change, none for refusals")
        }
    }

    @Test func twoConcurrentFollowsGiveOne200AndOne409() async throws {
        try await withSocialService { api in
            let me = try await api.user()
            let friend = try await api.user()
            async let first = api.send(.post, "/v1/follow/\(friend.userId)", as: me)
            async let second = api.send(.post, "/v1/follow/\(friend.userId)", as: me)
            let statuses = try await [first.status, second.status].sorted()
            #expect(statuses == [200, 409])
        }
    }
}
