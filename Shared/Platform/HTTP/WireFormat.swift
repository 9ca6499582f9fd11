/// Which generation of the wire format a handler answers in (decision 0011): G1 (`/v1`, API conventions §3), G0
/// (2023, no prefix, API conventions §4) or G2 (2024–25, `/v1` with a `ProductId` header, decision 0021). The domain
/// work is the same; only the encoding of its result differs.
package enum WireFormat: Sendable {
    case g1
    case g0
    case g2
}

/// A G0 user entry (creator, follower, following): `{_id, nick, profile?}`. Each service adds an initialiser
/// from its own G1 user type.
package struct G0User: Encodable, Sendable, Equatable {
    package var id: String
    package var nick: String
    package var profile: String?

    package init(id: String, nick: String, profile: String?) {
        self.id = id
        self.nick = nick
        self.profile = profile
    }

    enum CodingKeys: String, CodingKey { case id = "_id", nick, profile }
}

/// G2 spells stored paths (`uploads/posts/…`) with a leading slash and fetches them at `{host}/v1{path}` (WeeMo);
/// mychelin's `{base}/v1/` + path gives `//uploads/…`, which the gateway merges back to one slash.
package enum G2Path {
    package static func encode(_ path: String) -> String { path.hasPrefix("/") ? path : "/" + path }
    package static func encode(_ path: String?) -> String? { path.map { encode($0) } }
}
