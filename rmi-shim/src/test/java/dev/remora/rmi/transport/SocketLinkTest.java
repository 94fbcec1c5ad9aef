package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.fast.TailFixtures;
import dev.remora.rmi.wire.ArrayTail;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.TypeCacheMode;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Frames over a loopback socket pair: whole frames in order, large ones, a malformed one, the peer closing; each with
 * the receiver blocking at once (spin 0) and spinning first.
 */
class SocketLinkTest {
    private Socket a;
    private Socket b;

    @BeforeEach
    void pair() throws IOException {
        Socket[] p = loopbackPair();
        a = p[0];
        b = p[1];
    }

    /** Two ends of a loopback TCP connection: {connecting, accepted}. */
    static Socket[] loopbackPair() throws IOException {
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Socket a = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            return new Socket[] {a, ss.accept()};
        }
    }

    @AfterEach
    void close() throws IOException {
        a.close();
        b.close();
    }

    /** A frame of {@code kind} whose payload is the bytes 0, 1, 2, ... */
    static FrameBuffer frame(byte kind, int callId, int payload) {
        FrameBuffer f = new FrameBuffer(64);
        Frame.begin(f, kind, (byte) 0, callId);
        for (int i = 0; i < payload; i++) {
            f.writeByte(i);
        }
        Frame.finish(f);
        return f;
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void framesArriveWholeAndInOrder(long spin) throws IOException {
        Link tx = new SocketTechnology(1 << 20, spin).open(a, true);
        Link rx = new SocketTechnology(1 << 20, spin).open(b, false);
        tx.send(frame(Frame.CALL, 7, 30));
        tx.send(frame(Frame.REPLY, 8, 200_000)); // larger than the link's read buffer
        tx.send(frame(Frame.PING, 9, 0));
        FrameBuffer into = new FrameBuffer(16);
        int[] seen = new int[3];
        for (int i = 0; i < 3; i++) {
            int n = i;
            FrameBuffer f = rx.receive((kind, id, len) -> {
                seen[n] = id;
                return into;
            }, 5000);
            assertEquals(Frame.HEADER + (i == 0 ? 30 : i == 1 ? 200_000 : 0), f.length());
            if (i == 1) {
                assertEquals((byte) 199_999, f.array()[f.length() - 1]);
            }
        }
        assertEquals(7, seen[0]);
        assertEquals(8, seen[1]);
        assertEquals(9, seen[2]);
    }

    /** A frame's tail: copied behind the head below the two-write size, written after it above. */
    @Test
    void framesWithATailArriveWhole() throws IOException {
        Link tx = new SocketTechnology(1 << 22, 0).open(a, true);
        Link rx = new SocketTechnology(1 << 22, 0).open(b, false);
        int[] sizes = {20_000, SocketLink.TAIL_WRITE_MIN, 1_000_000};
        for (int p : sizes) {
            byte[] body = new byte[p + 3];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (i * 7 + p);
            }
            FrameBuffer f = new FrameBuffer(64).allowTail();
            Frame.begin(f, Frame.REPLY, (byte) 0, p);
            f.setTail(new ArrayTail(body, 3, p));
            Frame.finish(f);
            tx.send(f);
        }
        FrameBuffer into = new FrameBuffer(16);
        for (int p : sizes) {
            FrameBuffer f = rx.receive((kind, id, len) -> into, 5000);
            assertEquals(Frame.HEADER + p, f.length());
            assertEquals(p, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
            for (int i = 0; i < p; i += 101) {
                assertEquals((byte) ((i + 3) * 7 + p), f.array()[Frame.HEADER + i], "byte " + i + " of " + p);
            }
        }
    }

    /**
     * Remora's own code failing halfway through a frame (here a tail piece that is no array of numbers): the sender
     * is told the frame did not leave whole, and the peer, which had the head and part of the tail, reads the end of
     * the connection instead of waiting for the rest. Small tails are copied behind the head before anything is
     * written, large ones after it.
     */
    @ParameterizedTest
    @ValueSource(ints = {1_000, 100_000})
    void aFrameRemoraFailsToSendWholeClosesTheLink(int size) throws IOException {
        Link tx = new SocketTechnology(1 << 20, 0).open(a, true);
        Link rx = new SocketTechnology(1 << 20, 0).open(b, false);
        FrameBuffer f = new FrameBuffer(64).allowTail();
        Frame.begin(f, Frame.CALL, (byte) 0, 5);
        f.setTail(new ArrayTail(new byte[size], 0, size) {
            @Override
            public Object piece(int i) {
                return new boolean[size]; // copyPiece refuses it, as it would fail on a bug of its own
            }

            @Override
            public void copyTo(byte[] dst, int at) {
                throw new IllegalStateException("a bug of Remora's");
            }
        });
        Frame.finish(f);
        Link.NotSent e = assertThrows(Link.NotSent.class, () -> tx.send(f));
        assertTrue(e.getMessage().contains("whole"), e.getMessage());
        assertTrue(!tx.isOpen());
        assertThrows(EOFException.class, () -> rx.receive((kind, id, len) -> new FrameBuffer(16), 5000));
    }

    /** A fake clock that each pause moves on by {@code pauseNanos}; counts the pauses. */
    private static final class FakeCpu {
        long now;
        int pauses;
        final long pauseNanos;

        FakeCpu(long pauseNanos) {
            this.pauseNanos = pauseNanos;
        }

        void pause() {
            pauses++;
            now += pauseNanos;
        }
    }

    /**
     * A platform thread's spin yields its CPU; a virtual thread's hints a spin wait, as its yield would only unmount it
     * (JDK 21+; on JDK 17 there are no virtual threads to check).
     */
    @Test
    void aVirtualThreadSpinsWithoutYielding() throws Exception {
        Runnable platform = SocketLink.pause();
        Runnable[] virtual = new Runnable[1];
        java.lang.reflect.Method start;
        try {
            start = Thread.class.getMethod("startVirtualThread", Runnable.class);
        } catch (NoSuchMethodException e) {
            return;
        }
        Thread t = (Thread) start.invoke(null, (Runnable) () -> virtual[0] = SocketLink.pause());
        t.join();
        assertTrue(virtual[0] != null && virtual[0] != platform, "a virtual thread's pause is not a yield");
        Thread p = new Thread(() -> virtual[0] = SocketLink.pause());
        p.start();
        p.join();
        assertEquals(platform, virtual[0]);
    }

    @Test
    void aSpinEndsAtTheFirstYieldThatLostTheCpuForASlice() {
        FakeCpu busy = new FakeCpu(3_000_000); // another runnable thread took a 3 ms slice at each yield
        assertEquals(SocketLink.SPIN_LOST_CPU, SocketLink.spinWait(() -> false, 20_000, () -> busy.now, busy::pause));
        assertEquals(1, busy.pauses, "one lost slice, not eight (the clock was read every eighth poll)");

        FakeCpu brief = new FakeCpu(100_000); // a housekeeping thread ran 100 us: the budget is spent, no backoff
        assertEquals(SocketLink.SPIN_BUDGET, SocketLink.spinWait(() -> false, 20_000, () -> brief.now, brief::pause));
        assertEquals(1, brief.pauses);

        FakeCpu idle = new FakeCpu(1_000); // yields come back in a microsecond
        assertEquals(SocketLink.SPIN_BUDGET, SocketLink.spinWait(() -> false, 20_000, () -> idle.now, idle::pause));
        assertEquals(20, idle.pauses);

        FakeCpu arriving = new FakeCpu(1_000);
        assertEquals(SocketLink.SPIN_READY, SocketLink.spinWait(() -> arriving.pauses == 3, 20_000,
                () -> arriving.now, arriving::pause));
        FakeCpu lateButThere = new FakeCpu(3_000_000); // the frame came while another thread ran
        assertEquals(SocketLink.SPIN_READY, SocketLink.spinWait(() -> lateButThere.pauses == 1, 20_000,
                () -> lateButThere.now, lateButThere::pause));
    }

    /** Tails of many pieces: byte arrays written as they are, other arrays in scratch-sized chunks. */
    @Test
    void tailsOfManyPiecesArriveInOrder() throws Exception {
        Link tx = new SocketTechnology(1 << 22, 0).open(a, true);
        Link rx = new SocketTechnology(1 << 22, 0).open(b, false);
        FastChannel writer = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel reader = new FastChannel(TypeCacheMode.CONNECTION);
        for (int seed = 0; seed < 3; seed++) {
            TailFixtures.send(writer, tx, seed);
        }
        for (int seed = 0; seed < 3; seed++) {
            FrameBuffer f = rx.receive((kind, id, len) -> new FrameBuffer(16), 5000);
            assertEquals(seed, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
            TailFixtures.check(reader, f, seed);
        }
    }

    /**
     * A frame with byte arrays of 256 KB or more, or other arrays of 16 MB or more, goes after its map: the receiver
     * reads those arrays into arrays of their own (byte arrays straight from the socket), the rest into the frame;
     * frames after it are untouched.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void largeArraysArriveApartFromTheirFrame(long spin) throws Exception {
        Link tx = new SocketTechnology(1 << 26, spin).open(a, true);
        Link rx = new SocketTechnology(1 << 26, spin).open(b, false);
        FastChannel writer = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel reader = new FastChannel(TypeCacheMode.CONNECTION);
        java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newSingleThreadExecutor();
        try {
            for (int seed = 0; seed < 3; seed++) {
                int s = seed;
                java.util.concurrent.Future<FrameBuffer> got = java.util.concurrent.Executors.newSingleThreadExecutor()
                        .submit(() -> rx.receive((kind, id, len) -> new FrameBuffer(16), 20_000));
                int sent = TailFixtures.sendLarge(writer, tx, s, pool);
                FrameBuffer f = got.get(20, java.util.concurrent.TimeUnit.SECONDS);
                assertEquals(sent - TailFixtures.LARGE_BYTES, f.length());
                TailFixtures.checkLarge(reader, f, s, 1);
                tx.send(frame(Frame.PING, 100 + s, 5)); // the stream stays in step
                assertEquals(100 + s, FrameBuffer.getInt(rx.receive((kind, id, len) -> new FrameBuffer(16), 5000)
                        .array(), Frame.OFF_CALL_ID));
            }
            long[] big = new long[SocketLink.APART_NUMBERS / 8 + 1];
            for (int i = 0; i < big.length; i += 1000) {
                big[i] = i;
            }
            java.util.concurrent.Future<FrameBuffer> got = java.util.concurrent.Executors.newSingleThreadExecutor()
                    .submit(() -> rx.receive((kind, id, len) -> new FrameBuffer(16), 20_000));
            java.util.concurrent.Future<?> sent = pool.submit(() -> {
                writer.lockWrite();
                try {
                    tx.send(TailFixtures.frame(writer, 9, new Object[] {"big", big}));
                } finally {
                    writer.unlockWrite();
                }
                return null;
            });
            sent.get(20, java.util.concurrent.TimeUnit.SECONDS);
            FrameBuffer f = got.get(20, java.util.concurrent.TimeUnit.SECONDS);
            assertEquals(1, f.apartCount());
            org.junit.jupiter.api.Assertions.assertArrayEquals(big, (long[]) TailFixtures.read(reader, f)[1]);
        } finally {
            pool.shutdownNow();
        }
    }

    /** A map that does not add up (a bad count, a header that disagrees with it) closes the link, saying what. */
    @Test
    void aMapThatDoesNotAddUpClosesTheLink() throws Exception {
        for (String what : new String[] {"count", "header"}) {
            close();
            pair();
            Link rx = new SocketTechnology(1 << 20, 0).open(b, false);
            FrameBuffer m = new FrameBuffer(64);
            m.writeInt(0);
            m.writeInt(100); // the frame's length
            m.writeInt(what.equals("count") ? 1_000_000 : 0);
            m.writeInt(Frame.REPLY << 16);
            m.writeInt(7); // call id
            a.getOutputStream().write(m.array(), 0, m.length());
            FrameBuffer f = frame(Frame.REPLY, 8, 100 - Frame.HEADER);
            a.getOutputStream().write(f.array(), 0, f.length());
            MalformedFrameException e = assertThrows(MalformedFrameException.class,
                    () -> rx.receive((k, id, len) -> new FrameBuffer(16), 5000));
            assertTrue(e.getMessage().contains(what.equals("count") ? "a map of 12000020 bytes"
                    : "its header disagrees with its map"), e.getMessage());
            assertTrue(!rx.isOpen());
        }
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void malformedFrameClosesTheLinkWithAClearMessage(long spin) throws IOException {
        Link rx = new SocketTechnology(1 << 20, spin).open(b, false);
        FrameBuffer bad = new FrameBuffer(16);
        bad.writeInt(-5);
        bad.writeInt(0x01000000);
        bad.writeInt(1);
        a.getOutputStream().write(bad.array(), 0, bad.length());
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> rx.receive((k, id, len) -> new FrameBuffer(16), 5000));
        assertTrue(e.getMessage().contains("malformed Remora frame"), e.getMessage());
        assertTrue(!rx.isOpen());
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void peerCloseIsAnEofAndStillOpenNoticesIt(long spin) throws IOException {
        Link rx = new SocketTechnology(1 << 20, spin).open(b, false);
        assertTrue(rx.stillOpen());
        a.close();
        assertThrows(EOFException.class, () -> rx.receive((k, id, len) -> new FrameBuffer(16), 5000));
        assertTrue(!rx.stillOpen());
    }

    @Test
    void withAMaximumTheSpinGrowsToFramesThatComeALittleAfterItAndOnlyThen() throws Exception {
        // What this checks is the wiring: a link times its waits for a frame and feeds them to its SpinBudget (whose
        // rule SpinBudgetTest checks on a clock of its own). So the waits must be real waits whatever the scheduler
        // does: the sender sends frame i only once the receiver is about to wait for it (no frame is ever already
        // there), and the maximum (50 ms) is far above any stall, so a stalled thread only lengthens a wait.
        Link tx = new SocketTechnology(1 << 20, 0).open(a, true);
        SocketLink rx = (SocketLink) new SocketTechnology(1 << 20, 20_000, 50_000_000).open(b, false);
        assertEquals(20_000, rx.spinBudgetNanos(), "a fresh link spins remora.socket.spin");
        java.util.concurrent.SynchronousQueue<Integer> ready = new java.util.concurrent.SynchronousQueue<>();
        Thread sender = new Thread(() -> {
            try {
                for (int i = 0; i < 64; i++) {
                    int want = ready.take();
                    long t = System.nanoTime();
                    while (System.nanoTime() - t < 150_000) {
                        Thread.onSpinWait(); // a frame 150 us after the receiver began waiting: past the 20 us spin
                    }
                    tx.send(frame(Frame.CALL, want, 8));
                }
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        });
        sender.setDaemon(true);
        sender.start();
        for (int i = 0; i < 64; i++) {
            int[] seen = {-1};
            assertTrue(ready.offer(i, 5, java.util.concurrent.TimeUnit.SECONDS), "the sender took frame " + i);
            rx.receive((k, id, len) -> {
                seen[0] = id;
                return new FrameBuffer(64);
            }, 5000);
            assertEquals(i, seen[0]);
        }
        sender.join(5000);
        long grown = rx.spinBudgetNanos();
        // waits of at least about 150 us make it about 300 us or more; no frame was ever there to make it less
        assertTrue(grown > 40_000 && grown <= 50_000_000, "grew to twice the waits: " + grown);
        Socket[] p = loopbackPair();
        try {
            SocketLink fixed = (SocketLink) new SocketTechnology(1 << 20, 20_000).open(p[1], false);
            assertEquals(20_000, fixed.spinBudgetNanos(), "without a maximum the spin does not adapt");
        } finally {
            p[0].close();
            p[1].close();
        }
    }

    @Test
    void aSpinningReceiverStillGetsAFrameThatComesAfterItsSpinAndHonorsTheTimeout() throws Exception {
        Link tx = new SocketTechnology(1 << 20, 0).open(a, true);
        Link rx = new SocketTechnology(1 << 20, 2_000_000).open(b, false);
        long t0 = System.nanoTime();
        assertThrows(java.net.SocketTimeoutException.class, () -> rx.receive((k, id, len) -> new FrameBuffer(16), 30));
        assertTrue(System.nanoTime() - t0 >= 30_000_000L, "timed out before the timeout");
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(20); // well after the 2 ms spin: the receiver is blocked in read by then
                tx.send(frame(Frame.CALL, 11, 10));
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        late.start();
        FrameBuffer f = rx.receive((k, id, len) -> new FrameBuffer(16), 5000);
        late.join();
        assertEquals(Frame.HEADER + 10, f.length());
        assertEquals(11, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
    }

    /**
     * Every read is a timed one (the JDK's untimed read path stays cold, see {@link Link#READ_FOREVER_MILLIS}): a wait
     * without a timeout reads with the stand-in timeout and waits through it, while a wait with one still ends.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 2_000_000})
    void aWaitWithoutATimeoutReadsTimedAndWaitsThroughTheStandIn(long spin) throws Exception {
        Link tx = new SocketTechnology(1 << 20, 0).open(a, true);
        SocketLink rx = new SocketLink(b, 1 << 20, spin, 20);
        assertEquals(20, b.getSoTimeout(), "a link's socket reads timed from the start");
        assertThrows(java.net.SocketTimeoutException.class, () -> rx.receive((k, id, len) -> new FrameBuffer(16), 30));
        Thread late = new Thread(() -> {
            try {
                Thread.sleep(150); // several stand-in timeouts
                tx.send(frame(Frame.CALL, 12, 70_000)); // more than one read
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        late.start();
        FrameBuffer f = rx.receive((k, id, len) -> new FrameBuffer(16), 0);
        late.join();
        assertEquals(20, b.getSoTimeout());
        assertEquals(Frame.HEADER + 70_000, f.length());
        assertEquals(12, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
    }

    /**
     * A timed wait that ends inside a frame closes the link: the frame's first bytes are consumed, and a next read
     * would take the rest for a header. A frame whose bytes keep coming, each within the timeout, arrives whole.
     */
    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void aTimeoutInsideAFrameClosesTheLinkButAFrameThatKeepsComingArrives(long spin) throws Exception {
        Link rx = new SocketTechnology(1 << 20, spin).open(b, false);
        FrameBuffer big = frame(Frame.REPLY, 21, 200_000);
        java.io.OutputStream out = a.getOutputStream();
        Thread slow = new Thread(() -> {
            try {
                for (int at = 0; at < big.length(); at += 50_000) {
                    out.write(big.array(), at, Math.min(50_000, big.length() - at));
                    out.flush();
                    Thread.sleep(60); // each piece well within the 1 s timeout, the whole frame not
                }
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        slow.start();
        FrameBuffer f = rx.receive((k, id, len) -> new FrameBuffer(16), 1000);
        slow.join();
        assertEquals(big.length(), f.length());
        assertEquals(21, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
        assertEquals((byte) 199_999, f.array()[big.length() - 1]);

        out.write(big.array(), 0, 100_000); // half a frame, then nothing
        out.flush();
        java.net.SocketTimeoutException e = assertThrows(java.net.SocketTimeoutException.class,
                () -> rx.receive((k, id, len) -> new FrameBuffer(16), 100));
        assertTrue(e.getMessage().contains("connection closed"), e.getMessage());
        assertTrue(!rx.isOpen(), "a link out of step stays closed");
        out.write(big.array(), 100_000, big.length() - 100_000);
        assertThrows(IOException.class, () -> rx.receive((k, id, len) -> new FrameBuffer(16), 100),
                "the rest of the cut frame is not read as a frame");
    }
}
