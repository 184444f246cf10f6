#!/bin/sh
# Builds the oracle behind sticky_kafka_jvm.txt: Kafka's own
# AbstractStickyAssignor, compiled from a Kafka checkout with the few classes
# it needs (and stand-ins for slf4j and two helpers), driven by Oracle.java.
#
#   sh build.sh /path/to/kafka /tmp/kafka-oracle
#   LOGLAB_KAFKA_ORACLE=/tmp/kafka-oracle go test ./engine/group/assignor -run TestRegenerateStickyKafkaJVM
set -e
kafka=$1 out=$2
src=$kafka/clients/src/main/java/org/apache/kafka
min=$out/src
mkdir -p "$min" "$out/classes"
for f in clients/consumer/internals/AbstractStickyAssignor clients/consumer/internals/AbstractPartitionAssignor \
	clients/consumer/ConsumerPartitionAssignor clients/consumer/internals/Utils common/Node common/PartitionInfo \
	common/TopicPartition common/Cluster common/ClusterResource common/Configurable common/KafkaException \
	common/TopicIdPartition common/Uuid; do
	mkdir -p "$min/$(dirname $f)"
	cp "$src/$f.java" "$min/$f.java"
done
mkdir -p "$min/stub"
cat >"$min/stub/Logger.java" <<'J'
package org.slf4j;
public interface Logger {
  default boolean isDebugEnabled() { return false; }
  default boolean isTraceEnabled() { return false; }
  default boolean isInfoEnabled() { return false; }
  default void debug(String s, Object... a) {}
  default void info(String s, Object... a) {}
  default void warn(String s, Object... a) {}
  default void error(String s, Object... a) {}
  default void trace(String s, Object... a) {}
}
J
cat >"$min/stub/LoggerFactory.java" <<'J'
package org.slf4j;
public class LoggerFactory {
  public static Logger getLogger(Class<?> c) { return new Logger() {}; }
  public static Logger getLogger(String c) { return new Logger() {}; }
}
J
cat >"$min/stub/ConsumerGroupMetadata.java" <<'J'
package org.apache.kafka.clients.consumer;
public class ConsumerGroupMetadata {}
J
cat >"$min/stub/Utils.java" <<'J'
package org.apache.kafka.common.utils;
public class Utils {
  public static <T> Class<? extends T> loadClass(String k, Class<T> b) throws ClassNotFoundException { return Class.forName(k).asSubclass(b); }
  public static <T> T newInstance(Class<T> c) { try { return c.getDeclaredConstructor().newInstance(); } catch (Exception e) { throw new RuntimeException(e); } }
}
J
javac -nowarn -d "$out/classes" $(find "$min" -name '*.java') "$(dirname "$0")/Oracle.java"
