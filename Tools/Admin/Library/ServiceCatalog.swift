import SNSPlatform

/// The operator tool's look-ups in the system catalog (`SystemCatalog`, in SNSContract), with the errors an
/// operator reads when a name is unknown.
package enum ServiceCatalog {
    package typealias Service = SystemCatalog.Service

    package static var services: [Service] { SystemCatalog.services }

    /// The topics each consumer group subscribes to (as the services configure them).
    package static var consumerTopics: [String: [String]] {
        Dictionary(uniqueKeysWithValues: SystemCatalog.consumers.map { ($0.group, $0.topics) })
    }

    /// The service whose schema records `group`'s processed events.
    package static func owner(ofConsumer group: String) throws -> Service {
        guard let service = SystemCatalog.owner(ofConsumer: group) else {
            let known = SystemCatalog.consumers.map(\.group).joined(separator: ", ")
            throw AdminError("unknown consumer group '\(group)' (known: \(known))")
        }
        return service
    }

    package static func service(named name: String) throws -> Service {
        guard let service = SystemCatalog.service(named: name) else {
            throw AdminError("unknown service '\(name)' (known: \(services.map(\.name).joined(separator: ", ")))")
        }
        return service
    }
}

/// A failure the tool reports as one line on stderr with a non-zero exit status.
package struct AdminError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Every event type's wire name (for validating filters).
package let knownEventTypes: [String] = EventType.allCases.map(\.rawValue)
