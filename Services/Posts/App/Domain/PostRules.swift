import SNSPlatform

/// Input limits for posts and comments. Values over a limit are a 400 with a message naming the field.
struct PostRules: Sendable {
    let signer: MediaPathSigner

    /// RaeBaek's LSLProject sends a whole thread's text as `title` (decision 0013).
    static let maxTitle = 10_000
    static let maxContent = 10_000
    static let maxExtraContent = 5_000
    static let maxProductId = 100
    static let maxFiles = 5
    static let maxPrice = 1_000_000_000
    /// Best Moment percent-encodes comments before sending them (a Hangul syllable becomes 9 characters): 2 000
    /// syllables fit.
    static let maxComment = 20_000

    func checkLength(_ value: String?, field: String, max: Int) throws {
        guard let value else { return }
        if value.count > max {
            throw APIError.badRequest("\(field) 값이 너무 깁니다. (\(field) longer than \(max) characters)")
        }
    }

    /// Files must be paths our media service issued to the author (verified by signature, decision 0004).
    func checkFiles(_ files: [String]?, owner: String) throws {
        guard let files else { return }
        if files.count > Self.maxFiles {
            throw APIError.badRequest("파일은 최대 \(Self.maxFiles)개까지 첨부할 수 있습니다. (at most \(Self.maxFiles) files)")
        }
        for file in files {
            guard let path = MediaPath(file), path.kind == .posts, signer.isIssued(path, to: owner) else {
                throw APIError.badRequest(
                    "업로드되지 않은 파일입니다: \(file) (files must be paths returned by POST /v1/posts/files to you)")
            }
        }
        if Set(files).count != files.count {
            throw APIError.badRequest("같은 파일이 중복되었습니다. (duplicate file)")
        }
    }

    /// A place is a latitude in -90…90 with a longitude in -180…180, both or neither (an edit may change one).
    func checkPlace(latitude: Field<Double>, longitude: Field<Double>) throws {
        switch (latitude, longitude) {
        case (.absent, .absent), (.null, .null): return
        case (.value(let lat), .value(let lon)):
            guard (-90...90).contains(lat), (-180...180).contains(lon) else {
                throw APIError.badRequest(
                    "위치 값이 올바르지 않습니다. (latitude must be -90…90 and longitude -180…180)")
            }
        default:
            throw APIError.badRequest("latitude 와 longitude 는 함께 보내주세요. (send latitude and longitude together)")
        }
    }

    func checkPrice(_ price: Int?) throws {
        guard let price else { return }
        if price < 0 || price > Self.maxPrice {
            throw APIError.badRequest("price 값이 올바르지 않습니다. (price must be 0…\(Self.maxPrice))")
        }
    }

    func checkComment(_ content: String) throws -> String {
        guard !content.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
            throw APIError.badRequest("댓글 내용을 입력해주세요. (content must not be empty)")
        }
        try checkLength(content, field: "content", max: Self.maxComment)
        return content
    }
}
