package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.StreamCorruptedException;
import java.util.Arrays;
import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/**
 * Arrays of numbers, which the streams copy as one block where they have the internal Unsafe ({@link ArrayBytes}) and
 * through byte-array views otherwise: this module's tests run both ways (see its pom). Lengths on both sides of
 * {@link RemoraObjectOutput#SMALL_ARRAY}, where the views change from element loops to buffers.
 */
class PrimitiveArraysTest {
    private static final int[] LENGTHS = {0, 1, 7, 255, 256, 257, 5000};

    @Test
    void blockCopiesAreOnExactlyWhereTheInternalUnsafeIs() {
        boolean exported = Object.class.getModule().isExported("jdk.internal.misc", ArrayBytes.class.getModule());
        boolean wanted = !"false".equals(System.getProperty("remora.serializer.unsafe"));
        assertEquals(exported && wanted, ArrayBytes.BULK);
    }

    @ParameterizedTest
    @ValueSource(ints = {0, 1, 7, 255, 256, 257, 5000})
    void everyArrayOfNumbersComesBackBitForBit(int n) throws Exception {
        Object[] arrays = arrays(n, new Random(n));
        Object[] back = new RoundTrip().roundTripAll(arrays);
        assertSameBits(arrays, back);
    }

    @Test
    void arraysOfEveryLengthShareOneMessage() throws Exception {
        Random r = new Random(42);
        Object[] all = new Object[0];
        for (int n : LENGTHS) {
            Object[] some = arrays(n, r);
            Object[] grown = Arrays.copyOf(all, all.length + some.length);
            System.arraycopy(some, 0, grown, all.length, some.length);
            all = grown;
        }
        RoundTrip rt = new RoundTrip();
        assertSameBits(all, rt.roundTripAll(all));
        assertSameBits(all, rt.roundTripAll(all)); // again, with the types known
    }

    @ParameterizedTest
    @ValueSource(ints = {3, 300})
    void aSenderOfTheOtherByteOrderIsReadSwapped(int n) throws Exception {
        RoundTrip rt = new RoundTrip();
        int[] ints = new int[n];
        double[] doubles = new double[n];
        for (int i = 0; i < n; i++) {
            ints[i] = 0x01020304 * (i + 1);
            doubles[i] = Math.PI * (i - 7);
        }
        rt.roundTrip(ints); // teach the reader the types: the next messages are a header, a tag, an id, a length
        rt.roundTrip(doubles);
        int[] intsBack = (int[]) rt.read(otherOrder(rt.write(ints), 4 * n, 4), 1)[0];
        assertArrayEquals(ints, intsBack);
        double[] doublesBack = (double[]) rt.read(otherOrder(rt.write(doubles), 8 * n, 8), 1)[0];
        assertSameBits(new Object[] {doubles}, new Object[] {doublesBack});
    }

    @ParameterizedTest
    @ValueSource(ints = {10, 300})
    void anArrayLongerThanWhatIsLeftOfItsMessageIsRefusedBeforeAnyCopy(int n) throws Exception {
        RoundTrip rt = new RoundTrip();
        byte[] m = rt.write((Object) new double[n]);
        byte[] cut = Arrays.copyOf(m, m.length - 8);
        StreamCorruptedException e = assertThrows(StreamCorruptedException.class, () -> rt.read(cut, 1));
        assertEquals(true, e.getMessage().contains("array of " + n + " elements"), e.getMessage());
    }

    /** m as a sender of the other byte order writes it, for a message that ends in {@code bytes} bytes of numbers. */
    private static byte[] otherOrder(byte[] m, int bytes, int size) {
        byte[] swapped = m.clone();
        swapped[0] ^= Wire.F_LITTLE_ENDIAN;
        for (int p = m.length - bytes; p < m.length; p += size) {
            for (int k = 0; k < size; k++) {
                swapped[p + k] = m[p + size - 1 - k];
            }
        }
        return swapped;
    }

    private static Object[] arrays(int n, Random r) {
        double[] d = new double[n];
        float[] f = new float[n];
        long[] j = new long[n];
        int[] i = new int[n];
        short[] s = new short[n];
        char[] c = new char[n];
        byte[] b = new byte[n];
        boolean[] z = new boolean[n];
        for (int k = 0; k < n; k++) {
            // a NaN with a payload of its own: a copy keeps its bits, which doubleToLongBits would not
            d[k] = k % 17 == 3 ? Double.longBitsToDouble(0x7ff8_0000_dead_beefL) : r.nextDouble() * 1e300 - 5e299;
            f[k] = k % 13 == 5 ? Float.intBitsToFloat(0x7fc0_beef) : r.nextFloat() - 0.5f;
            j[k] = r.nextLong();
            i[k] = r.nextInt();
            s[k] = (short) r.nextInt();
            c[k] = (char) r.nextInt();
            b[k] = (byte) r.nextInt();
            z[k] = r.nextBoolean();
        }
        return new Object[] {d, f, j, i, s, c, b, z};
    }

    private static void assertSameBits(Object[] sent, Object[] back) {
        assertEquals(sent.length, back.length);
        for (int k = 0; k < sent.length; k++) {
            Object a = sent[k];
            Object o = back[k];
            assertEquals(a.getClass(), o.getClass());
            if (a instanceof double[]) {
                double[] x = (double[]) a;
                double[] y = (double[]) o;
                assertEquals(x.length, y.length);
                for (int e = 0; e < x.length; e++) {
                    assertEquals(Double.doubleToRawLongBits(x[e]), Double.doubleToRawLongBits(y[e]), "element " + e);
                }
            } else if (a instanceof float[]) {
                float[] x = (float[]) a;
                float[] y = (float[]) o;
                assertEquals(x.length, y.length);
                for (int e = 0; e < x.length; e++) {
                    assertEquals(Float.floatToRawIntBits(x[e]), Float.floatToRawIntBits(y[e]), "element " + e);
                }
            } else if (a instanceof long[]) {
                assertArrayEquals((long[]) a, (long[]) o);
            } else if (a instanceof int[]) {
                assertArrayEquals((int[]) a, (int[]) o);
            } else if (a instanceof short[]) {
                assertArrayEquals((short[]) a, (short[]) o);
            } else if (a instanceof char[]) {
                assertArrayEquals((char[]) a, (char[]) o);
            } else if (a instanceof byte[]) {
                assertArrayEquals((byte[]) a, (byte[]) o);
            } else {
                assertArrayEquals((boolean[]) a, (boolean[]) o);
            }
        }
    }
}
