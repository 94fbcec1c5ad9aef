package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.nio.ByteBuffer;
import java.util.LinkedList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Primitive arrays left external (RemoraObjectOutput#externalArrays): same bytes, same semantics, fewer copies. */
class ExternalArraysTest {
    private static final int MIN = 1024;

    private static Object[] mixed() {
        int[] ints = new int[3000];
        for (int i = 0; i < ints.length; i++) {
            ints[i] = i * 7919;
        }
        byte[] bytes = new byte[5000];
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 31);
        }
        double[] doubles = new double[700];
        long[] longs = new long[600];
        float[] floats = new float[900];
        short[] shorts = new short[800];
        char[] chars = new char[1000];
        for (int i = 0; i < 600; i++) {
            doubles[i] = i / 3.0;
            longs[i] = -i * 1_000_000_007L;
            floats[i] = i * 0.5f;
            shorts[i] = (short) -i;
            chars[i] = (char) ('a' + i % 26);
        }
        return new Object[] {"head", ints, new int[10], bytes, Fixtures.Int32.sample(), doubles, longs, floats,
                shorts, chars, new boolean[4000], ints, "tail"};
    }

    private static byte[] write(RemoraObjectOutput out, Object... objs) throws IOException {
        return RoundTrip.write(out, objs);
    }

    private static RemoraObjectOutput writer(int min) throws IOException {
        RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
        out.externalArrays(min);
        return out;
    }

    @Test
    void theMessageIsTheSameBytesWithOrWithoutExternalArrays() throws Exception {
        RemoraObjectOutput copying = writer(0);
        RemoraObjectOutput external = writer(MIN);
        for (int call = 0; call < 2; call++) { // the first call describes its types in a prelude, the second not
            byte[] a = write(copying, mixed());
            byte[] b = write(external, mixed());
            assertArrayEquals(a, b, "call " + call);
            // 7 arrays of MIN bytes or more; the second reference to ints is a handle; boolean[] is always copied
            assertEquals(15, external.pieces(), "call " + call);
            assertEquals(1, copying.pieces());
            assertThrows(IllegalStateException.class, external::array);
            ByteBuffer direct = ByteBuffer.allocateDirect(b.length + 3);
            direct.position(3);
            external.copyTo(direct);
            assertEquals(b.length + 3, direct.position());
            byte[] viaBuffer = new byte[b.length];
            direct.get(3, viaBuffer);
            assertArrayEquals(b, viaBuffer);
        }
    }

    @Test
    void piecesAreTheMessageInOrder() throws Exception {
        RemoraObjectOutput out = writer(MIN);
        Object[] objs = mixed();
        byte[] m = write(out, objs);
        assertSame(objs[1], out.piece(1), "the int[] itself, not a copy");
        int at = 0;
        for (int i = 0; i < out.pieces(); i++) {
            byte[] p = new byte[out.pieceLength(i)];
            RemoraObjectOutput.copyPiece(out.piece(i), out.pieceOffset(i), p, 0, p.length);
            assertArrayEquals(java.util.Arrays.copyOfRange(m, at, at + p.length), p, "piece " + i);
            at += p.length;
        }
        assertEquals(m.length, at);
    }

    @Test
    void readsBackEqual() throws Exception {
        RoundTrip rt = new RoundTrip();
        rt.out.externalArrays(MIN);
        Object[] objs = mixed();
        Object[] back = rt.roundTripAll(objs);
        assertArrayEquals((int[]) objs[1], (int[]) back[1]);
        assertArrayEquals((double[]) objs[5], (double[]) back[5]);
        assertArrayEquals((char[]) objs[9], (char[]) back[9]);
        assertSame(back[1], back[11]);
    }

    /**
     * A receiver that read the message's whole arrays apart ({@link RemoraObjectOutput#pieceElement}) and the rest
     * into the message: the reader takes each array where its elements would start, as it is; one of another type
     * there is a corrupt stream.
     */
    @Test
    void arraysReceivedApartAreTakenWhereTheirElementsWouldStart() throws Exception {
        RoundTrip rt = new RoundTrip();
        rt.out.externalArrays(MIN);
        for (int call = 0; call < 2; call++) {
            Object[] objs = mixed();
            RoundTrip.write(rt.out, objs);
            java.io.ByteArrayOutputStream compact = new java.io.ByteArrayOutputStream();
            List<Object> apart = new java.util.ArrayList<>();
            List<Integer> at = new java.util.ArrayList<>();
            for (int i = 0; i < rt.out.pieces(); i++) {
                Object p = rt.out.piece(i);
                char code = rt.out.pieceElement(i);
                if (code == 0) {
                    byte[] b = new byte[rt.out.pieceLength(i)];
                    RemoraObjectOutput.copyPiece(p, rt.out.pieceOffset(i), b, 0, b.length);
                    compact.write(b);
                } else {
                    assertEquals(PrimitiveArrays.code(p), code);
                    apart.add(cloneArray(p));
                    at.add(compact.size());
                }
            }
            assertEquals(7, apart.size(), "int[], byte[], double[], long[], float[], short[], char[]");
            byte[] m = compact.toByteArray();
            rt.in.beginCall(m, 0, m.length);
            rt.in.provideArrays(apart.toArray(), at.stream().mapToInt(Integer::intValue).toArray(), apart.size());
            Object[] back = new Object[objs.length];
            try {
                for (int i = 0; i < objs.length; i++) {
                    back[i] = rt.in.readObject();
                }
            } finally {
                rt.in.endCall();
            }
            assertSame(apart.get(0), back[1], "the array received apart, not a copy");
            assertArrayEquals((int[]) objs[1], (int[]) back[1]);
            assertArrayEquals((byte[]) objs[3], (byte[]) back[3]);
            assertArrayEquals((double[]) objs[5], (double[]) back[5]);
            assertArrayEquals((char[]) objs[9], (char[]) back[9]);
            assertSame(back[1], back[11]);
            assertEquals("tail", back[12]);

            // a long[] where the message has its int[]: refused
            RoundTrip.write(rt.out, objs);
            Object[] wrong = apart.toArray();
            wrong[0] = new long[((int[]) objs[1]).length];
            rt.in.beginCall(m, 0, m.length);
            rt.in.provideArrays(wrong, at.stream().mapToInt(Integer::intValue).toArray(), wrong.length);
            try {
                rt.in.readObject();
                java.io.StreamCorruptedException e = assertThrows(java.io.StreamCorruptedException.class,
                        rt.in::readObject);
                assertTrue(e.getMessage().contains("received apart"), e.getMessage());
            } finally {
                rt.in.endCall();
            }
        }
    }

    private static Object cloneArray(Object a) {
        int n = java.lang.reflect.Array.getLength(a);
        Object c = java.lang.reflect.Array.newInstance(a.getClass().getComponentType(), n);
        System.arraycopy(a, 0, c, 0, n);
        return c;
    }

    /** A copied external array (user code ran after it was written) is no whole array of the message. */
    @Test
    void copiedArraysAreNotOfferedApart() throws Exception {
        RemoraObjectOutput out = writer(MIN);
        int[] a = new int[1000];
        RoundTrip.write(out, a, new Scribbler(a));
        int whole = 0;
        for (int i = 0; i < out.pieces(); i++) {
            whole += out.pieceElement(i) != 0 ? 1 : 0;
        }
        assertEquals(0, whole);
    }

    /** Its writeObject changes an array that was written before it. */
    static final class Scribbler implements Serializable {
        private static final long serialVersionUID = 1L;
        transient int[] victim;

        Scribbler(int[] victim) {
            this.victim = victim;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            victim[0] = -1;
        }
    }

    @Test
    void anArrayChangedByLaterUserCodeTravelsAsItWasWritten() throws Exception {
        RoundTrip rt = new RoundTrip();
        rt.out.externalArrays(MIN);
        int[] a = new int[1000];
        a[0] = 42;
        Object[] back = rt.roundTripAll(a, new Scribbler(a));
        assertEquals(-1, a[0]);
        assertEquals(42, ((int[]) back[0])[0], "as the JDK's stream would: the array as it was when written");
        assertEquals(42, ((int[]) RoundTrip.jdkAll(fresh42(), null)[0])[0]);
    }

    private static int[] fresh42() {
        int[] a = new int[1000];
        a[0] = 42;
        return a;
    }

    /** Writes an array, changes it, writes it again unshared: two different arrays on the wire. */
    static final class Rewriter implements Serializable {
        private static final long serialVersionUID = 1L;
        transient long[] data = new long[500];

        private void writeObject(ObjectOutputStream out) throws IOException {
            data[0] = 1;
            out.writeObject(data);
            data[0] = 2;
            out.writeUnshared(data);
        }

        private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
            long[] first = (long[]) in.readObject();
            long[] second = (long[]) in.readUnshared();
            data = new long[] {first[0], second[0]};
        }
    }

    @Test
    void arraysWrittenByUserCodeAreCopiedWhenWritten() throws Exception {
        RoundTrip rt = new RoundTrip();
        rt.out.externalArrays(MIN);
        Rewriter back = (Rewriter) rt.roundTrip(new Rewriter());
        assertArrayEquals(new long[] {1, 2}, back.data);
        assertEquals(1, rt.out.pieces(), "nothing left external once user code ran");
    }

    @Test
    void theJdksOwnWriteObjectKeepsArraysExternal() throws Exception {
        List<Object> list = new LinkedList<>(); // ArrayList has a fast path of its own, without a section
        list.add(new float[2000]);
        list.add("x");
        list.add(new byte[3000]);
        RemoraObjectOutput external = writer(MIN);
        byte[] b = write(external, list, Fixtures.Int32.sample());
        assertTrue(external.pieces() > 1, "LinkedList's writeObject is the JDK's: its elements stay external");
        assertArrayEquals(write(writer(0), list, Fixtures.Int32.sample()), b, "the section length counts them");
        RoundTrip rt = new RoundTrip();
        rt.out.externalArrays(MIN);
        List<?> back = (List<?>) rt.roundTrip(list);
        assertEquals(3000, ((byte[]) back.get(2)).length);
    }

    @Test
    void streamsCannotLeaveArraysExternal() throws Exception {
        RemoraObjectOutput stream = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS,
                new java.io.ByteArrayOutputStream());
        assertThrows(IllegalStateException.class, () -> stream.externalArrays(MIN));
    }

    @Test
    void releasingTheMessageForgetsItsObjectsAndTheNextCallIsWhole() throws Exception {
        RemoraObjectOutput out = writer(MIN);
        int[] big = new int[1000];
        write(out, big, "x");
        assertSame(big, out.piece(1));
        out.release();
        assertThrows(IllegalStateException.class, out::pieces, "the message is gone");
        java.lang.ref.WeakReference<int[]> ref = new java.lang.ref.WeakReference<>(big);
        big = null;
        for (int i = 0; i < 50 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(10);
        }
        assertEquals(null, ref.get(), "the writer no longer holds the array (external, and in its handle table)");
        RemoraObjectOutput copying = writer(0);
        write(copying, new int[1000], "x");
        assertArrayEquals(write(copying, new int[1000], "x"), write(out, new int[1000], "x"),
                "types stay committed: the next call names them by id");
    }
}
