/// Hashtag rules (decision 0041): a tag is `#` followed by everything up to the next whitespace or `#`, in any script
/// (DevCommunity writes roles as `#iOS;2 #UI/UX;1` and splits the tags it reads back at `;`). Responses keep the
/// author's spelling without `#`; matching is case-insensitive.
enum Hashtags {
    static let maxTags = 30
    static let maxLength = 100

    /// The tags in `content`, in order of first appearance, each once (case-insensitively).
    static func extract(from content: String?) -> [String] {
        guard let content else { return [] }
        var tags: [String] = []
        var seen: Set<String> = []
        var index = content.startIndex
        while index < content.endIndex, tags.count < maxTags {
            guard content[index] == "#" else { index = content.index(after: index); continue }
            var end = content.index(after: index)
            while end < content.endIndex, isTagCharacter(content[end]) { end = content.index(after: end) }
            let tag = String(content[content.index(after: index)..<end])
            if !tag.isEmpty, tag.count <= maxLength, seen.insert(key(tag)).inserted { tags.append(tag) }
            index = end
        }
        return tags
    }

    static func isTagCharacter(_ character: Character) -> Bool {
        !character.isWhitespace && character != "#"
    }

    /// The matching key of a tag (or of a search term, with an optional leading `#`).
    static func key(_ tag: String) -> String {
        var tag = Substring(tag.trimmingCharacters(in: .whitespacesAndNewlines))
        if tag.hasPrefix("#") { tag = tag.dropFirst() }
        return String(tag).lowercased()
    }
}
