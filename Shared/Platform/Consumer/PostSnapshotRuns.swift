/// Splits a consumer's batch for handlers that upsert post snapshots in bulk (decision 0015): consecutive
/// `post-created`/`post-updated` events form runs of **distinct** posts (a post that comes again starts a new run),
/// every other event is handed over on its own, all in the batch's order. A handler that writes each run with one
/// statement touching each row once therefore ends where applying the events one by one would.
package enum PostSnapshotRuns {
    package static func apply(
        _ events: [IncomingEvent],
        run applyRun: ([PostSnapshot]) async throws -> Void,
        other applyOther: (IncomingEvent) async throws -> Void
    ) async throws {
        var run: [PostSnapshot] = []
        var inRun = Set<String>()
        for event in events {
            let snapshot: PostSnapshot? =
                switch event.eventType {
                case .postCreated: try event.payload(as: PostCreated.self).post
                case .postUpdated: try event.payload(as: PostUpdated.self).post
                default: nil
                }
            guard let snapshot else {
                if !run.isEmpty { try await applyRun(run) }
                run = []
                inRun = []
                try await applyOther(event)
                continue
            }
            if inRun.contains(snapshot.postId) {
                try await applyRun(run)
                run = []
                inRun = []
            }
            run.append(snapshot)
            inRun.insert(snapshot.postId)
        }
        if !run.isEmpty { try await applyRun(run) }
    }
}
