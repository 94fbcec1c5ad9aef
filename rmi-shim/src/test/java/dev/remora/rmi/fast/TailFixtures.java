package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.transport.Link;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;

/** For link tests: fast frames whose tails are many pieces (the writer's bytes and long arrays of several types). */
public final class TailFixtures {
    private TailFixtures() {
    }

    /** Strings, a byte[] and arrays of other types, some long (external), one longer than a socket's scratch. */
    public static Object[] value(int seed) {
        int[] ints = new int[50_000]; // 200 KB: several socket scratch chunks
        long[] longs = new long[3_000];
        byte[] bytes = new byte[70_000];
        for (int i = 0; i < ints.length; i++) {
            ints[i] = i * 31 + seed;
        }
        for (int i = 0; i < longs.length; i++) {
            longs[i] = -i * 1_000_003L + seed;
        }
        for (int i = 0; i < bytes.length; i++) {
            bytes[i] = (byte) (i * 7 + seed);
        }
        return new Object[] {"first " + seed, ints, new short[] {1, 2}, bytes, longs, "last"};
    }

    /**
     * Writes value as a fast REPLY with call id {@code id} into a frame that takes a tail; the caller holds
     * {@code ch}'s write lock until the frame is sent.
     */
    public static FrameBuffer frame(FastChannel ch, int id, Object value) throws IOException {
        FrameBuffer f = new FrameBuffer(64).allowTail();
        Frame.begin(f, Frame.REPLY, Frame.FLAG_FAST, id);
        ch.beginWrite().writeObject(value);
        ch.finishWrite(f);
        Frame.finish(f);
        return f;
    }

    /** Writes value(seed) as {@link #frame} does and sends it over link, under ch's write lock as the router does. */
    public static void send(FastChannel ch, Link link, int seed) throws IOException {
        ch.lockWrite();
        try {
            FrameBuffer f = frame(ch, seed, value(seed));
            assertTrue(f.tail().pieces() > 3, "pieces: " + f.tail().pieces());
            link.send(f);
        } finally {
            ch.unlockWrite();
        }
    }

    /** The value of a received fast REPLY frame (as {@link #frame} writes one). */
    public static Object[] read(FastChannel ch, FrameBuffer received) throws Exception {
        received.position(Frame.HEADER);
        RmiFastInput in = ch.beginRead(received, false, null, null);
        try {
            return (Object[]) in.readObject();
        } finally {
            ch.endRead(in);
        }
    }

    /** Reads a received frame written by {@link #frame} and checks it against {@code value(seed)}. */
    public static void check(FastChannel ch, FrameBuffer received, int seed) throws Exception {
        Object[] got = read(ch, received);
        Object[] want = value(seed);
        assertEquals(want[0], got[0]);
        assertArrayEquals((int[]) want[1], (int[]) got[1]);
        assertArrayEquals((short[]) want[2], (short[]) got[2]);
        assertArrayEquals((byte[]) want[3], (byte[]) got[3]);
        assertArrayEquals((long[]) want[4], (long[]) got[4]);
        assertEquals(want[5], got[5]);
    }

    /**
     * A value with three arrays of 256 KB or more (FrameMap.MIN_APART: they travel apart) between strings of odd
     * lengths, so that a link cutting the frame into messages cuts inside the arrays' elements' runs.
     */
    public static Object[] large(int seed) {
        long[] longs = new long[400_001];
        double[] doubles = new double[70_000];
        for (int i = 0; i < longs.length; i++) {
            longs[i] = i * 0x9E3779B97F4A7C15L + seed;
        }
        for (int i = 0; i < doubles.length; i++) {
            doubles[i] = i / 7.0 + seed;
        }
        byte[] bytes = new byte[256 * 1024 + 3];
        bytes[bytes.length - 1] = (byte) seed;
        return new Object[] {"odd", longs, "between", doubles, bytes, new int[] {seed}, "end"};
    }

    /** Bytes of {@link #large}'s arrays, its long[], double[] and byte[]. */
    public static final int LARGE_LONGS = 8 * 400_001;
    public static final int LARGE_DOUBLES = 8 * 70_000;
    public static final int LARGE_BYTES = 256 * 1024 + 3;

    /**
     * Writes {@link #large}(seed) as a fast REPLY with call id seed and sends it over link from another thread (a
     * large frame fills a socket's buffers), under the channel's write lock; returns the frame's length on the wire.
     */
    public static int sendLarge(FastChannel ch, Link link, int seed, java.util.concurrent.ExecutorService pool)
            throws Exception {
        java.util.concurrent.Future<Integer> sent = pool.submit(() -> {
            ch.lockWrite();
            try {
                FrameBuffer f = frame(ch, seed, large(seed));
                link.send(f);
                return f.frameLength();
            } finally {
                ch.unlockWrite();
            }
        });
        return sent.get(20, java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * Checks a received {@link #large}(seed) frame: {@code apart} of its arrays came apart (the first: its long[] if
     * 3, its byte[] if 1) and the reader took them.
     */
    public static void checkLarge(FastChannel ch, FrameBuffer received, int seed, int apart) throws Exception {
        assertEquals(apart, received.apartCount(), "arrays received apart");
        assertEquals(received.length(), FrameBuffer.getInt(received.array(), 0), "the header says its length");
        assertEquals(seed, FrameBuffer.getInt(received.array(), Frame.OFF_CALL_ID));
        Object first = received.apartArrays()[0];
        Object[] got = read(ch, received);
        Object[] want = large(seed);
        org.junit.jupiter.api.Assertions.assertSame(first, got[apart == 3 ? 1 : 4], "the array received apart, not a copy");
        assertEquals(want[0], got[0]);
        assertArrayEquals((long[]) want[1], (long[]) got[1]);
        assertEquals(want[2], got[2]);
        assertArrayEquals((double[]) want[3], (double[]) got[3]);
        assertArrayEquals((byte[]) want[4], (byte[]) got[4]);
        assertArrayEquals((int[]) want[5], (int[]) got[5]);
        assertEquals(want[6], got[6]);
    }
}
