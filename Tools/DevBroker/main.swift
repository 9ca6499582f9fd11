// sns-dev-broker: a Kafka-protocol broker for developer machines and CI.
//
// It runs librdkafka's mock cluster (rdkafka_mock.h, librdkafka 2.0.2 from Debian) as a standalone
// process: real Kafka wire protocol, consumer groups and committed offsets, all IN MEMORY —
// everything (topics, records, offsets) is lost when the process exits. docker-compose and
// production use real Apache Kafka; this is only for local runs and tests.
//
// Behaviour of the mock cluster (checked empirically with librdkafka 2.0.2):
// - Listens on random loopback ports (there is no API to choose them); the bootstrap list is
//   printed ("sns-dev-broker listening on <bootstraps>") and optionally written to --address-file.
// - Unknown topics ARE auto-created, with 4 partitions (the mock's default; replication = broker
//   count, max 3), as soon as any client asks for them in a Metadata request: a producer producing
//   to them, and also a consumer subscribing to them — even with the consumer default
//   `allow.auto.create.topics=false` (the mock ignores that flag; real Kafka does not). So tests
//   can use private topics such as `test.<uuid>` without any setup. Code that needs a specific
//   partition count must use the catalog (below, or `--topic name:partitions`), not auto-creation.
// - Admin CreateTopics/DeleteTopics are not supported (they time out): the catalog topics are
//   created here with rd_kafka_mock_topic_create. offsets_for_times returns -1.
// - Consumer groups: the first join of an empty group takes ~3 s (the mock's fixed initial
//   rebalance delay); later rebalances wait up to session.timeout.ms - 1 s for members to rejoin.
//   session.timeout.ms must be above ~3000 or members time out during that first 3 s join and the
//   group never stabilises; 6000 with heartbeat.interval.ms=500..1000 is a good test setting.
//   Every member of a group should use the SAME session.timeout.ms (sns-admin included: it reads
//   SNS_KAFKA_PROPERTIES like the services). When the last member leaves, the mock waits
//   (its session timeout − 1 s) before settling the group; a member that joins meanwhile with a SHORTER
//   session timeout is expired by the mock while it waits in JoinGroup, and its JoinGroup is never
//   answered — the consumer hangs for max.poll.interval.ms (5 min). Seen after `sns-admin rebuild`
//   (10 s) followed by a service configured with 6 s.
//   Both range and cooperative-sticky assignment work, but with 2.0.2 a cooperative-sticky member
//   does not send LeaveGroup on close, so the next member waits for its session timeout: SNSKafka
//   uses range.
//
// Runs until SIGTERM or SIGINT, then destroys the cluster, removes --address-file and exits 0.
// SIGUSR1 starts a simulated outage (rd_kafka_mock_broker_set_down on every broker: connections are
// dropped and new ones refused, data kept) and SIGUSR2 ends it — the fault-tolerance tests use this for
// "the broker is away for a while"; killing the process instead loses everything (then: republish).

DevBrokerCommand.main()
