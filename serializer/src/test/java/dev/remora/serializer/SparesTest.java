package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;

import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** Arrays made ahead (Spares): used only when the messages repeat, each handed out once, within the budget. */
class SparesTest {
    private static byte[] bytes(int n, int seed) {
        byte[] b = new byte[n];
        for (int i = 0; i < n; i++) {
            b[i] = (byte) (i * 31 + seed);
        }
        return b;
    }

    private static int[] ints(int n, int seed) {
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            a[i] = i * 7919 + seed;
        }
        return a;
    }

    @Test
    void arraysAreMadeAheadOnceTwoMessagesCarriedTheSameOnesAndTakenByTheNext() throws Exception {
        RoundTrip rt = new RoundTrip();
        Spares sp = new Spares(1 << 20);
        rt.in.spares(sp);
        long base = Spares.held();
        for (int call = 0; call < 5; call++) {
            byte[] b = bytes(100_000, call);
            int[] i = ints(5_000, call);
            Object[] r = rt.read(rt.write("head", b, i, "tail"), 4);
            assertArrayEquals(b, (byte[]) r[1]);
            assertArrayEquals(i, (int[]) r[2]);
            assertEquals(Math.max(0, call - 1) * 2L, sp.taken(), "call " + call);
            sp.prepare();
            assertEquals(call == 0 ? 0 : 120_000, Spares.held() - base, "held after call " + call);
        }
        Object[] r = rt.read(rt.write(bytes(50_000, 9)), 1); // another length: nothing fits, nothing is made
        assertArrayEquals(bytes(50_000, 9), (byte[]) r[0]);
        assertEquals(6, sp.taken());
        sp.prepare();
        assertEquals(0, Spares.held() - base);
    }

    @Test
    void eachArrayMadeAheadIsHandedOutOnce() throws Exception {
        RoundTrip rt = new RoundTrip();
        Spares sp = new Spares(1 << 20);
        rt.in.spares(sp);
        Object[] seen = new Object[6];
        for (int call = 0; call < 3; call++) {
            Object[] r = rt.read(rt.write(bytes(40_000, call), bytes(40_000, call + 1)), 2);
            assertArrayEquals(bytes(40_000, call), (byte[]) r[0]);
            assertArrayEquals(bytes(40_000, call + 1), (byte[]) r[1]);
            seen[2 * call] = r[0];
            seen[2 * call + 1] = r[1];
            sp.prepare();
        }
        assertEquals(2, sp.taken());
        for (int a = 0; a < seen.length; a++) {
            for (int b = a + 1; b < seen.length; b++) {
                assertNotSame(seen[a], seen[b], "results " + a + " and " + b);
            }
        }
        sp.drop();
    }

    @Test
    void theBudgetSmallArraysAndDropBoundWhatIsHeld() throws Exception {
        long base = Spares.held();
        RoundTrip rt = new RoundTrip();
        Spares small = new Spares(50_000);
        rt.in.spares(small);
        for (int call = 0; call < 3; call++) {
            rt.read(rt.write(bytes(100_000, call)), 1);
            small.prepare();
            assertEquals(0, Spares.held() - base, "over the budget");
        }
        RoundTrip rt2 = new RoundTrip();
        Spares sp = new Spares(1 << 20);
        rt2.in.spares(sp);
        for (int call = 0; call < 3; call++) {
            rt2.read(rt2.write(bytes(Spares.MIN_BYTES - 1, call)), 1);
            sp.prepare();
            assertEquals(0, Spares.held() - base, "an array under MIN_BYTES");
        }
        for (int call = 0; call < 2; call++) {
            rt2.read(rt2.write(new double[3000], "x"), 2);
            sp.prepare();
        }
        assertEquals(24_000, Spares.held() - base);
        sp.drop();
        assertEquals(0, Spares.held() - base, "drop lets go");
        for (int call = 0; call < 3; call++) { // a dropped (closed) connection's Spares makes nothing more
            rt2.read(rt2.write(new double[3000], "x"), 2);
            sp.prepare();
        }
        assertEquals(0, Spares.held() - base, "made after drop");
    }

    @Test
    void withoutSparesEveryArrayIsNew() throws Exception {
        RoundTrip rt = new RoundTrip();
        Object[] a = rt.read(rt.write(new long[4000]), 1);
        Object[] b = rt.read(rt.write(new long[4000]), 1);
        assertNotSame(a[0], b[0]);
        assertEquals(true, Arrays.equals((long[]) a[0], (long[]) b[0]));
    }
}
