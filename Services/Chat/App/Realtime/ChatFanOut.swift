import Foundation
import Logging
import SNSKafka
import SNSPlatform
import ServiceLifecycle

/// Feeds this replica's sockets: reads every partition of `sns.chats` from its end, without a consumer group
/// (every replica needs every message, and a group would share them out), and hands each `chat-message-sent` to
/// the hub as the apps' Chat JSON. A message posted to any replica reaches the sockets every replica holds.
/// Messages sent while the replica was down are not replayed to sockets: the apps load the history over REST when
/// they open a room. A message read twice (the topic is at-least-once) goes out once (`RecentMessageIds`). Also runs
/// the hub's heartbeat.
struct ChatFanOut: Service {
    let hub: RealtimeHub
    let kafka: KafkaConfiguration
    let logger: Logger

    func run() async throws {
        let partitions = Topic.catalog.first { $0.name == Topic.chats }?.partitions ?? 1
        let reader = try KafkaPartitionReader(
            configuration: kafka,
            assignments: (0..<Int32(partitions)).map {
                KafkaTopicPartitionOffset(topic: Topic.chats, partition: $0, offset: .end)
            },
            logger: logger)
        let hub = self.hub
        // On SIGTERM (or a test's end) both loops stop at once: the heartbeat's sleep is cancelled, the reader closed.
        do {
            try await cancelWhenGracefulShutdown {
                try await withGracefulShutdownHandler {
                    try await withThrowingDiscardingTaskGroup { group in
                        group.addTask {
                            while true {
                                try await Task.sleep(for: hub.settings.pingInterval)
                                await hub.heartbeat()
                            }
                        }
                        group.addTask { try await deliver(from: reader) }
                    }
                } onGracefulShutdown: {
                    Task { await reader.close() }
                }
            }
        } catch is CancellationError {
            // the shutdown itself
        }
        await reader.close()
        await hub.closeAll()
    }

    private func deliver(from reader: KafkaPartitionReader) async throws {
        let decoder = EventCoding.decoder()
        let encoder = APIJSON.encoder()
        var delivered = RecentMessageIds(capacity: 4096)
        while true {
            guard let record = try await reader.next(timeout: .seconds(1)) else {
                if Task.isCancelled || isShuttingDown { return }
                continue
            }
            guard
                let envelope = try? decoder.decode(EventEnvelope<ChatMessageSent>.self, from: Data(record.value)),
                envelope.type == EventType.chatMessageSent.rawValue
            else { continue }
            let message = envelope.payload
            guard delivered.insert(message.chatId) else { continue }  // read twice from the topic
            let chat = ChatJSON(
                chatId: message.chatId, roomId: message.roomId, content: message.content, createdAt: message.createdAt,
                sender: ChatUserJSON(
                    userId: message.sender.userId, nick: message.sender.nick,
                    profileImage: message.sender.profileImage),
                files: message.files)
            guard let json = try? String(decoding: encoder.encode(chat), as: UTF8.self),
                let g2 = try? String(decoding: encoder.encode(chat.g2), as: UTF8.self)
            else { continue }
            await hub.deliver(roomId: message.roomId, chatJSON: json, g2JSON: g2)
        }
    }

    private var isShuttingDown: Bool { Task.isShuttingDownGracefully }
}
