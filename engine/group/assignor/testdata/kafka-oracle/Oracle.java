// Oracle runs Kafka's own AbstractStickyAssignor (built by build.sh) on the
// scenarios read from stdin and prints each assignment, for
// sticky_kafka_jvm.txt. Input, one scenario per block ending in "=":
//   T topic partitions
//   M memberId generation topic,topic owned-topic:partition,...  ("-" for none)
// Members go into a HashMap as ConsumerCoordinator.onLeaderElected puts them.
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.TopicPartition;
import java.io.*;
import java.util.*;

public class Oracle {
  static class A extends AbstractStickyAssignor {
    public String name() { return "oracle"; }
    protected MemberData memberData(Subscription s) { return new MemberData(s.ownedPartitions(), s.generationId()); }
    Map<TopicPartition, String> transferring() { return partitionsTransferringOwnership; }
  }
  static TopicPartition tp(String s) { int i = s.lastIndexOf(':'); return new TopicPartition(s.substring(0, i), Integer.parseInt(s.substring(i + 1))); }
  public static void main(String[] args) throws Exception {
    BufferedReader r = new BufferedReader(new InputStreamReader(System.in));
    Map<String, Integer> topics = new HashMap<>();
    TreeMap<String, Subscription> subs = new TreeMap<>();
    String line;
    while ((line = r.readLine()) != null) {
      String[] f = line.trim().split(" ");
      if (f[0].equals("T")) { topics.put(f[1], Integer.parseInt(f[2])); }
      else if (f[0].equals("M")) {
        int gen = Integer.parseInt(f[2]);
        List<String> ts = f[3].equals("-") ? new ArrayList<>() : new ArrayList<>(Arrays.asList(f[3].split(",")));
        List<TopicPartition> owned = new ArrayList<>();
        if (!f[4].equals("-")) for (String p : f[4].split(",")) owned.add(tp(p));
        subs.put(f[1], new Subscription(ts, null, owned, gen, Optional.empty()));
      } else if (f[0].equals("=")) {
        Map<String, Subscription> hm = new HashMap<>(); subs.forEach(hm::put);
        // only subscribed topics, as AbstractPartitionAssignor.assign does
        Map<String, Integer> ppt = new HashMap<>();
        for (Subscription s : subs.values()) for (String t : s.topics()) if (topics.containsKey(t)) ppt.put(t, topics.get(t));
        A a = new A();
        StringBuilder out = new StringBuilder();
        try {
          Map<String, List<TopicPartition>> asg = a.assign(ppt, hm);
          Map<TopicPartition, String> tr = a.transferring();
          for (String id : new TreeSet<>(asg.keySet())) out.append(id).append(": ").append(fmt(asg.get(id))).append("\n");
          if (tr == null) out.append("transferring: null\n");
          else { TreeMap<String,String> t = new TreeMap<>(); tr.forEach((k,v)->t.put(k.toString(), v)); out.append("transferring: ").append(t).append("\n"); }
        } catch (Exception e) { out.append("error: ").append(e).append("\n"); }
        System.out.print(out); System.out.println("=");
        topics.clear(); subs.clear();
      }
    }
  }
  static String fmt(List<TopicPartition> l) {
    List<TopicPartition> c = new ArrayList<>(l);
    c.sort(Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition));
    StringBuilder b = new StringBuilder(); for (TopicPartition p : c) { if (b.length() > 0) b.append(","); b.append(p.topic()).append(":").append(p.partition()); }
    return b.toString();
  }
}
