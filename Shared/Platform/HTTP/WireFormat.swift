/// Which generation of the wire format a handler answers in (decision 0011): G1 (`/v1`, API conventions §3) or G0
/// (2023, no prefix, API conventions §4). The domain work is the same; only the encoding of its result differs.
package enum WireFormat: Sendable {
    case g1
    case g0
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
