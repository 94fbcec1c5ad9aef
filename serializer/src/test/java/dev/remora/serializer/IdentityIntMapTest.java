package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** The write side's identity map against IdentityHashMap, across its linear-to-hashed switch, clears and rollbacks. */
class IdentityIntMapTest {

    @Test
    void equalButDistinctObjectsAreDistinctKeys() {
        IdentityIntMap m = new IdentityIntMap(8);
        String a = new String("x");
        String b = new String("x");
        assertEquals(-1, m.putIfAbsent(a, 1));
        assertEquals(-1, m.putIfAbsent(b, 2));
        assertEquals(1, m.get(a));
        assertEquals(2, m.get(b));
        assertEquals(-1, m.get(new String("x")));
    }

    @Test
    void behavesAsAnIdentityHashMapAcrossSizesClearsAndRollbacks() {
        Random rnd = new Random(42);
        IdentityIntMap m = new IdentityIntMap(64);
        for (int round = 0; round < 300; round++) {
            Map<Object, Integer> ref = new IdentityHashMap<>();
            List<Object> pool = new ArrayList<>();
            int n = rnd.nextInt(3) == 0 ? rnd.nextInt(400) : rnd.nextInt(IdentityIntMap.LINEAR + 4);
            for (int i = 0; i < n; i++) {
                pool.add(new Object());
            }
            int next = 0;
            for (int op = 0; op < n * 3 + 1; op++) {
                Object k = pool.isEmpty() ? new Object() : pool.get(rnd.nextInt(pool.size()));
                switch (rnd.nextInt(4)) {
                    case 0: {
                        Integer old = ref.get(k);
                        int got = m.putIfAbsent(k, next);
                        assertEquals(old == null ? -1 : old, got, "putIfAbsent, round " + round);
                        if (old == null) {
                            ref.put(k, next);
                        }
                        next++;
                        break;
                    }
                    case 1:
                        if (!ref.containsKey(k)) {
                            m.put(k, next);
                            ref.put(k, next++);
                        }
                        break;
                    case 2:
                        if (rnd.nextInt(20) == 0) { // rollback: drop values >= from
                            int from = next == 0 ? 0 : rnd.nextInt(next + 1);
                            m.removeValuesFrom(from);
                            ref.values().removeIf(v -> v >= from);
                        }
                        break;
                    default:
                        assertEquals(ref.getOrDefault(k, -1).intValue(), m.get(k), "get, round " + round);
                }
                assertEquals(ref.size(), m.size(), "size, round " + round);
            }
            for (Object k : pool) {
                assertEquals(ref.getOrDefault(k, -1).intValue(), m.get(k), "final get, round " + round);
            }
            m.clear();
            assertEquals(0, m.size());
            for (Object k : pool) {
                assertEquals(-1, m.get(k), "after clear, round " + round);
            }
        }
    }
}
