import SNSPlatform

/// What the operator tool knows about the system: each service's schema (its outbox lives there) and its
/// consumer groups (each records processed events in that schema, under the group's name).
public enum ServiceCatalog {
    public struct Service: Sendable, Equatable {
        public let name: String
        public let schema: String
        public let consumers: [String]

        public init(name: String, schema: String, consumers: [String]) {
            self.name = name
            self.schema = schema
            self.consumers = consumers
        }
    }

    public static let services: [Service] = [
        Service(name: "auth", schema: "auth", consumers: []),
        Service(name: "posts", schema: "posts", consumers: ["posts-read-models"]),
        Service(name: "media", schema: "media", consumers: ["media-references"]),
        Service(name: "social", schema: "social", consumers: ["social-projections"]),
        Service(name: "market", schema: "market", consumers: ["market-products"]),
    ]

    /// The topics each consumer group subscribes to (as the services configure them).
    public static let consumerTopics: [String: [String]] = [
        "posts-read-models": [Topic.users, Topic.follows, Topic.payments],
        "media-references": [Topic.posts, Topic.users],
        "social-projections": [Topic.users, Topic.posts],
        "market-products": [Topic.posts, Topic.users],
    ]

    /// The service whose schema records `group`'s processed events.
    public static func owner(ofConsumer group: String) throws -> Service {
        guard let service = services.first(where: { $0.consumers.contains(group) }) else {
            throw AdminError("unknown consumer group '\(group)' (known: \(services.flatMap(\.consumers).joined(separator: ", ")))")
        }
        return service
    }

    public static func service(named name: String) throws -> Service {
        guard let service = services.first(where: { $0.name == name }) else {
            throw AdminError("unknown service '\(name)' (known: \(services.map(\.name).joined(separator: ", ")))")
        }
        return service
    }
}

/// A failure the tool reports as one line on stderr with a non-zero exit status.
public struct AdminError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// Every event type's wire name (for validating filters).
public let knownEventTypes: [String] = EventType.allCases.map(\.rawValue)
