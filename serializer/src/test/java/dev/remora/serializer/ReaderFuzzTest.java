package dev.remora.serializer;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.io.ObjectInputFilter;
import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Seeded random-mutation fuzzing of the reader over valid messages (a bounded number of iterations, a few seconds in
 * CI; raise {@code -Dremora.fuzz.iterations} locally). Every malformed input must end in an IOException-family
 * exception with a message (or ClassNotFoundException for a mangled class name, or the exception the JDK's own
 * classes throw from their readObject on nonsense values), never an Error such as OutOfMemoryError or
 * StackOverflowError, and never hang (the test has a timeout).
 */
class ReaderFuzzTest {

    /** Exceptions the JDK itself lets through from its classes' readObject methods on bad values. */
    static boolean acceptable(Throwable t) {
        if (t instanceof IOException || t instanceof ClassNotFoundException) {
            return t.getMessage() != null || t.getClass() == java.io.OptionalDataException.class;
        }
        return t instanceof ClassCastException || t instanceof ArrayStoreException
                || t instanceof IllegalArgumentException || t instanceof IllegalStateException
                || t instanceof NegativeArraySizeException || t instanceof NullPointerException
                || t instanceof IndexOutOfBoundsException || t instanceof ArithmeticException
                || t instanceof NumberFormatException;
    }

    private static List<byte[]> corpus() throws IOException {
        List<Object> objs = new ArrayList<>();
        objs.add(Fixtures.Int32.sample());
        objs.add(new Fixtures.Int4Null2());
        objs.add(Fixtures.Tree.build(4));
        objs.add(Fixtures.graph());
        objs.add(new float[] {1, 2, 3});
        objs.add(new Object[] {"a", 1, 2L, 'c', null, new int[] {1}, new String[] {"x"}, Fixtures.Tree.class});
        Map<String, Object> m = new HashMap<>();
        m.put("k", new LinkedList<>(List.of(1, 2)));
        m.put("t", new TreeMap<>(Map.of("a", new BigDecimal("1.5"))));
        m.put("enum", java.time.DayOfWeek.MONDAY);
        objs.add(m);
        objs.add(new SemanticsTest.Ext(1, "e"));
        objs.add(new SemanticsTest.Point(3, "p", new double[] {1}));
        List<byte[]> msgs = new ArrayList<>();
        for (Object o : objs) {
            RoundTrip rt = new RoundTrip();
            msgs.add(rt.write(o, "second", o));
        }
        return msgs;
    }

    @Test
    @Timeout(120)
    void malformedInputNeverEscapesAsAnError() throws Exception {
        int iterations = Integer.getInteger("remora.fuzz.iterations", 30_000);
        long seed = Long.getLong("remora.fuzz.seed", 20261122L);
        Random rnd = new Random(seed);
        List<byte[]> corpus = corpus();
        Map<String, Integer> outcomes = new TreeMap<>();
        SerializerOptions opts = SerializerOptions.DEFAULTS.withMaxDepth(500);
        for (int it = 0; it < iterations; it++) {
            byte[] msg = mutate(corpus.get(rnd.nextInt(corpus.size())), rnd);
            RemoraObjectInput in = new RemoraObjectInput(new ReadTypeTable(), opts);
            if (it % 3 == 0) {
                in.setStreamFilter(ObjectInputFilter.Config.createFilter("maxarray=100000;maxdepth=200"));
            }
            String outcome;
            try {
                in.beginCall(msg, 0, msg.length);
                for (int k = 0; k < 3; k++) {
                    in.readObject();
                }
                outcome = "ok";
            } catch (Throwable t) {
                if (!acceptable(t)) {
                    fail("iteration " + it + " (seed " + seed + "): " + t + " on input "
                            + java.util.HexFormat.of().formatHex(msg), t);
                }
                outcome = t.getClass().getSimpleName();
                if (Boolean.getBoolean("remora.fuzz.trace") && (t instanceof NullPointerException || t instanceof ArrayStoreException)) {
                    t.printStackTrace(System.out);
                }
            } finally {
                in.endCall();
            }
            outcomes.merge(outcome, 1, Integer::sum);
        }
        System.out.println("fuzz outcomes over " + iterations + " mutated messages: " + outcomes);
        assertTrue(outcomes.size() > 3, "mutations reach several failure kinds: " + outcomes);
    }

    static byte[] mutate(byte[] src, Random rnd) {
        byte[] b = src.clone();
        int n = 1 + rnd.nextInt(4);
        for (int i = 0; i < n; i++) {
            switch (rnd.nextInt(7)) {
                case 0: // flip a bit
                    b[rnd.nextInt(b.length)] ^= (byte) (1 << rnd.nextInt(8));
                    break;
                case 1: // random byte
                    b[rnd.nextInt(b.length)] = (byte) rnd.nextInt(256);
                    break;
                case 2: // interesting values: huge varints, tags
                    int p = rnd.nextInt(b.length);
                    byte[] vals = {(byte) 0xFF, (byte) 0x80, 0x7F, 0, 1, 2, 3, 4, 5, 6, 7, 8};
                    b[p] = vals[rnd.nextInt(vals.length)];
                    break;
                case 3: // truncate
                    b = java.util.Arrays.copyOf(b, rnd.nextInt(b.length) + 1);
                    break;
                case 4: { // duplicate a slice
                    int from = rnd.nextInt(b.length);
                    int len = rnd.nextInt(Math.min(16, b.length - from)) + 1;
                    int at = rnd.nextInt(b.length);
                    byte[] c = new byte[b.length + len];
                    System.arraycopy(b, 0, c, 0, at);
                    System.arraycopy(b, from, c, at, len);
                    System.arraycopy(b, at, c, at + len, b.length - at);
                    b = c;
                    break;
                }
                case 5: { // big-endian int overwrite (section lengths, counts)
                    if (b.length >= 4) {
                        int q = rnd.nextInt(b.length - 3);
                        int v = rnd.nextBoolean() ? Integer.MAX_VALUE : rnd.nextInt();
                        b[q] = (byte) (v >>> 24);
                        b[q + 1] = (byte) (v >>> 16);
                        b[q + 2] = (byte) (v >>> 8);
                        b[q + 3] = (byte) v;
                    }
                    break;
                }
                default: { // delete a byte
                    if (b.length > 1) {
                        int q = rnd.nextInt(b.length);
                        byte[] c = new byte[b.length - 1];
                        System.arraycopy(b, 0, c, 0, q);
                        System.arraycopy(b, q + 1, c, q, b.length - q - 1);
                        b = c;
                    }
                }
            }
        }
        return b;
    }
}
