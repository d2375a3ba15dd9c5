import java.util.*;

/** Prints, as JSON, the iteration order of java.util.HashMap / HashSet for a few key sequences
 *  (Integer keys: hashCode() is the value), for capeval's tests of its HashMap simulation. */
public class HashMapOrders {
  static String list(Collection<Integer> c) {
    StringBuilder b = new StringBuilder("[");
    for (Integer i : c) { if (b.length() > 1) b.append(','); b.append(i); }
    return b.append(']').toString();
  }
  static void emit(StringBuilder out, String name, Integer capacity, List<Integer> keys, Collection<Integer> order) {
    if (out.length() > 1) out.append(",\n");
    out.append("{\"name\":\"").append(name).append("\",\"capacity\":").append(capacity)
       .append(",\"keys\":").append(list(keys)).append(",\"order\":").append(list(order)).append('}');
  }
  public static void main(String[] a) {
    StringBuilder out = new StringBuilder("[");
    List<Integer> k1 = new ArrayList<>();
    for (int k = 0; k < 40; k++) k1.add(((k * 37) % 40) * 64);
    HashMap<Integer, Integer> m1 = new HashMap<>();
    for (int x : k1) m1.put(x, x);
    emit(out, "one bucket, tree bins across resizes", null, k1, m1.keySet());
    List<Integer> k2 = new ArrayList<>();
    long s = 12345;
    for (int k = 0; k < 300; k++) {
      s = s * 6364136223846793005L + 1442695040888963407L;
      int v = (int) (s >>> 33);
      v = (v & 0x7fff0000) ^ ((k % 3 == 0 ? -1 : 1) * (v & 0x3f) * 1024);
      k2.add(v);
    }
    HashMap<Integer, Integer> m2 = new HashMap<>();
    for (int x : k2) m2.put(x, x);
    emit(out, "negative and colliding hashes", null, k2, m2.keySet());
    List<Integer> k2c = new ArrayList<>(m2.keySet());
    emit(out, "HashSet copy of the previous map", -1, k2c, new HashSet<>(m2.keySet()));
    List<Integer> k3 = new ArrayList<>();
    for (int k = 0; k < 500; k++) k3.add((((k * 7919) % 200) << 16) ^ ((k * 104729) % 8192));
    HashMap<Integer, Integer> m3 = new HashMap<>(8192);
    for (int x : k3) m3.put(x, x);
    emit(out, "capacity 8192, unary-rule-like keys", 8192, k3, m3.keySet());
    List<Integer> k4 = new ArrayList<>();
    for (int k = 0; k < 20; k++) k4.add(k * 64 + (k % 2) * 64 * 64);
    for (int k = 0; k < 60; k++) k4.add(100000 + k);
    HashMap<Integer, Integer> m4 = new HashMap<>(64);
    for (int x : k4) m4.put(x, x);
    emit(out, "tree bin split and untreeified by a resize", 64, k4, m4.keySet());
    List<Integer> k5 = new ArrayList<>();
    for (int k = 0; k < 20; k++) k5.add(k * 64);
    for (int k = 1; k <= 40; k++) k5.add(k);
    HashMap<Integer, Integer> m5 = new HashMap<>(64);
    for (int x : k5) m5.put(x, x);
    emit(out, "tree bin split into two tree bins by a resize", 64, k5, m5.keySet());
    System.out.println(out.append("]"));
  }
}
