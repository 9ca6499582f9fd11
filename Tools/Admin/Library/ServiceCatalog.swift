import SNSPlatform

/// The operator tool's look-ups in the system catalog (`SystemCatalog`, in SNSContract), with the errors an
/// operator reads when a name is unknown.
public enum ServiceCatalog {
    public typealias Service = SystemCatalog.Service

    public static var services: [Service] { SystemCatalog.services }

    /// The topics each consumer group subscribes to (as the services configure them).
    public static var consumerTopics: [String: [String]] {
        Dictionary(uniqueKeysWithValues: SystemCatalog.consumers.map { ($0.group, $0.topics) })
    }

    /// The service whose schema records `group`'s processed events.
    public static func owner(ofConsumer group: String) throws -> Service {
        guard let service = SystemCatalog.owner(ofConsumer: group) else {
            let known = SystemCatalog.consumers.map(\.group).joined(separator: ", ")
            throw AdminError("unknown consumer group '\(group)' (known: \(known))")
        }
        return service
    }

    public static func service(named name: String) throws -> Service {
        guard let service = SystemCatalog.service(named: name) else {
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
