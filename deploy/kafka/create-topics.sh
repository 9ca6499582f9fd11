#!/usr/bin/env bash
# The kafka-init step of docker-compose.yml: creates the system's topics with the partition counts of the event
# catalog (Shared/Contract/Events/EventCatalog.swift; DeploymentTests checks that TOPICS matches it) and exits 0,
# which lets the services start (depends_on: condition: service_completed_successfully).
#
#   TOPICS              "name:partitions name:partitions …"
#   BOOTSTRAP           broker address (kafka:9092)
#   REPLICATION_FACTOR  1 for the single-node broker
#   RETENTION_MS        retention of the event topics; -1 (keep forever) because replays and projection
#                       rebuilds (sns-admin replay/rebuild, decision 0008) read topics from the beginning
#   KAFKA_BIN           where kafka-topics.sh is (/opt/kafka/bin in the apache/kafka image; tests use a stand-in)
#
# Existing topics are left alone; one with fewer partitions than the catalog stops the start-up (adding
# partitions would move keys to other partitions and break per-aggregate ordering: do it deliberately).
set -euo pipefail

: "${TOPICS:?TOPICS is not set}"
BOOTSTRAP="${BOOTSTRAP:-kafka:9092}"
REPLICATION_FACTOR="${REPLICATION_FACTOR:-1}"
RETENTION_MS="${RETENTION_MS:--1}"
topics_cli="${KAFKA_BIN:-/opt/kafka/bin}/kafka-topics.sh"

echo "kafka-init: waiting for $BOOTSTRAP"
for attempt in $(seq 1 60); do
  if "$topics_cli" --bootstrap-server "$BOOTSTRAP" --list >/dev/null 2>&1; then break; fi
  if [ "$attempt" = 60 ]; then echo "kafka-init: broker $BOOTSTRAP unreachable" >&2; exit 1; fi
  sleep 2
done

for spec in $TOPICS; do
  name="${spec%%:*}"
  partitions="${spec##*:}"
  "$topics_cli" --bootstrap-server "$BOOTSTRAP" --create --if-not-exists --topic "$name" \
    --partitions "$partitions" --replication-factor "$REPLICATION_FACTOR" --config "retention.ms=$RETENTION_MS"
  actual="$("$topics_cli" --bootstrap-server "$BOOTSTRAP" --describe --topic "$name" \
    | sed -n 's/.*PartitionCount: *\([0-9][0-9]*\).*/\1/p' | head -n 1)"
  if [ -z "$actual" ] || [ "$actual" -lt "$partitions" ]; then
    echo "kafka-init: topic $name has ${actual:-no} partitions, the catalog wants $partitions" >&2
    exit 1
  fi
  echo "kafka-init: $name ready ($actual partitions)"
done
echo "kafka-init: all topics ready"
