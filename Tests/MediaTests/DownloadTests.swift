import Foundation
import MediaService
import SNSPlatform
import SNSTestSupport
import Testing

@Suite("GET /v1/uploads/...: headers, 304, ranges, 416, 444, 410, auth")
struct DownloadTests {
    /// Uploads one file and returns its path and the bytes the server stored.
    func uploadOne(_ media: MediaTestContext, token: String, bytes: [UInt8] = ImageFixtures.png) async throws -> String
    {
        let reply = try await media.client.upload([.file(bytes)], token: token)
        #expect(reply.status == 200, "\(reply.text)")
        return try #require(try reply.files.first)
    }

    @Test func servesTheFileWithCachingHeaders() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            // Any valid token may read (images are shown to everyone who is logged in).
            let other = try await testUser()
            let reply = try await media.client.download(path, token: other.token)
            #expect(reply.status == 200)
            #expect(reply.body == ImageFixtures.png)
            #expect(reply.header("Content-Type") == "image/png")
            #expect(reply.header("Content-Length") == String(ImageFixtures.png.count))
            #expect(reply.header("Cache-Control") == "private, max-age=31536000, immutable")
            #expect(reply.header("Accept-Ranges") == "bytes")
            let etag = try #require(reply.header("ETag"))
            #expect(etag.hasPrefix("\"") && etag.hasSuffix("\"") && etag.count == 66, "strong tag: quoted hex SHA-256")
            #expect(!etag.hasPrefix("W/"))
        }
    }

    @Test func ifNoneMatchGives304WithoutBody() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            let etag = try #require(try await media.client.download(path, token: user.token).header("ETag"))
            for header in [etag, "W/\(etag)", "\"other\", \(etag)", "*"] {
                let reply = try await media.client.download(path, token: user.token, headers: ["If-None-Match": header])
                #expect(reply.status == 304, "\(header)")
                #expect(reply.body.isEmpty)
                #expect(reply.header("ETag") == etag)
            }
            let miss = try await media.client.download(path, token: user.token, headers: ["If-None-Match": "\"0000\""])
            #expect(miss.status == 200)
            #expect(miss.body == ImageFixtures.png)
        }
    }

    @Test func singleRangesGive206() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let bytes = ImageFixtures.largeJPEG(size: 200_000)  // several read chunks
            let path = try await uploadOne(media, token: user.token, bytes: bytes)
            let size = bytes.count
            let cases: [(String, ClosedRange<Int>)] = [
                ("bytes=0-9", 0...9),
                ("bytes=100-", 100...(size - 1)),
                ("bytes=-16", (size - 16)...(size - 1)),
                ("bytes=70000-140000", 70_000...140_000),
                ("bytes=10-999999999", 10...(size - 1)),
                ("bytes=-999999999", 0...(size - 1)),
                ("bytes=\(size - 1)-\(size - 1)", (size - 1)...(size - 1)),
            ]
            for (header, range) in cases {
                let reply = try await media.client.download(path, token: user.token, headers: ["Range": header])
                #expect(reply.status == 206, "\(header)")
                #expect(
                    reply.header("Content-Range") == "bytes \(range.lowerBound)-\(range.upperBound)/\(size)",
                    "\(header)")
                #expect(reply.header("Content-Length") == String(range.count), "\(header)")
                #expect(reply.body == Array(bytes[range]), "\(header)")
                #expect(reply.header("ETag") != nil)
            }
            // The whole file, streamed in chunks, is byte-identical.
            #expect(try await media.client.download(path, token: user.token).body == bytes)
        }
    }

    @Test func unsatisfiableRangeIs416() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            let size = ImageFixtures.png.count
            for header in ["bytes=\(size)-", "bytes=\(size + 10)-\(size + 20)", "bytes=-0"] {
                let reply = try await media.client.download(path, token: user.token, headers: ["Range": header])
                #expect(reply.status == 416, "\(header)")
                #expect(reply.header("Content-Range") == "bytes */\(size)")
                #expect(try reply.json.keys == ["message"])
            }
        }
    }

    @Test func malformedOrMultiRangeIsIgnored() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            for header in [
                "bytes=0-1,4-5", "bytes=5-2", "bytes=abc", "items=0-1", "bytes=", "bytes=-", "bytes=1-2-3",
                "bytes=+1-2",
            ] {
                let reply = try await media.client.download(path, token: user.token, headers: ["Range": header])
                #expect(reply.status == 200, "\(header)")
                #expect(reply.body == ImageFixtures.png, "\(header)")
                #expect(reply.header("Content-Range") == nil)
            }
            // If-Range with another tag: the whole file.
            let reply = try await media.client.download(
                path, token: user.token, headers: ["Range": "bytes=0-1", "If-Range": "\"stale\""])
            #expect(reply.status == 200)
        }
    }

    @Test func malformedPathsAre444BeforeTheDiskIsTouched() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            let name = try #require(MediaPath(path)).name
            // Plant a file outside the store that a traversal would reach.
            try Data("secret".utf8).write(to: URL(fileURLWithPath: media.root.path + "/secret.png"))
            let attempts = [
                "/v1/uploads/posts/../secret.png",
                "/v1/uploads/posts/%2e%2e/secret.png",
                "/v1/uploads/posts/%2E%2E%2Fsecret.png",
                "/v1/uploads/../../etc/passwd",
                "/v1/uploads/posts/\(name).png/extra",
                "/v1/uploads/posts/sub/\(name).png",
                "/v1/uploads/posts/\(name.uppercased()).png",
                "/v1/uploads/posts/\(name).exe",
                "/v1/uploads/posts/\(name).png.png",
                "/v1/uploads/videos/\(name).png",
                "/v1/uploads/posts/\(name)",
                "/v1/uploads/posts/\(name)%00.png",
                "/v1/uploads/posts/",
                "/v1/uploads/",
                "/v1/uploads/posts/.tmp",
                "/v1/uploads//posts/\(name).png",
            ]
            for attempt in attempts {
                let reply = try await media.client.send(.get, attempt, token: user.token)
                #expect(reply.status == 444, "\(attempt)")
                #expect(try reply.json.keys == ["message"], "\(attempt)")
            }
        }
    }

    @Test func wellFormedButUnknownIs410() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            // Signed correctly, but never stored.
            let never = media.signer.issue(kind: .posts, fileExtension: "jpg", owner: user.userId)
            let reply = try await media.client.download(never.string, token: user.token)
            #expect(reply.status == 410)
            #expect(try reply.json.keys == ["message"])
            // A profile path that was never stored.
            let profile = media.signer.issue(kind: .profiles, fileExtension: "png", owner: user.userId)
            #expect(try await media.client.download(profile.string, token: user.token).status == 410)
        }
    }

    @Test func keyAndTokenCodes() async throws {
        try await withMediaService { media in
            let user = try await testUser()
            let path = try await uploadOne(media, token: user.token)
            #expect(
                try await media.client.send(.get, "/v1/" + path, token: user.token, apiKey: .some(nil)).status == 420)
            #expect(try await media.client.send(.get, "/v1/" + path, token: nil, apiKey: "wrong").status == 420)
            #expect(try await media.client.download(path, token: nil).status == 401)
            #expect(try await media.client.download(path, token: "garbage").status == 401)
            let expired = try await signAccessToken(userId: user.userId, expiresIn: -5)
            #expect(try await media.client.download(path, token: expired).status == 419)
        }
    }
}
