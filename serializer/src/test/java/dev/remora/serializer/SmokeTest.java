package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

class SmokeTest {
    static final class P implements Serializable {
        int a = 1;
        long b = 2;
        String s = "x";
        P next;
        private final double d;
        P(double d) { this.d = d; }
    }

    @Test
    void basics() throws Exception {
        RoundTrip rt = new RoundTrip();
        P p = new P(3.5);
        p.next = p;
        P q = (P) rt.roundTrip(p);
        assertEquals(1, q.a);
        assertEquals(2, q.b);
        assertEquals("x", q.s);
        assertEquals(3.5, q.d);
        assertEquals(q, q.next);
        List<Object> l = new ArrayList<>();
        l.add(1);
        l.add("héllo €");
        l.add(new int[] {1, 2, 3});
        Map<String, Object> m = new HashMap<>();
        m.put("k", l);
        @SuppressWarnings("unchecked")
        Map<String, Object> m2 = (Map<String, Object>) rt.roundTrip(m);
        List<?> l2 = (List<?>) m2.get("k");
        assertEquals(1, l2.get(0));
        assertEquals("héllo €", l2.get(1));
        assertArrayEquals(new int[] {1, 2, 3}, (int[]) l2.get(2));
    }
}
