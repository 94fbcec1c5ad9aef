package dev.remora.rmi.transport.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.remora.fabric.Fabric;
import dev.remora.fabric.FabricOptions;
import dev.remora.rmi.RouterListener;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.MalformedFrameException;
import dev.remora.rmi.transport.SocketTechnology;
import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.fast.TailFixtures;
import dev.remora.rmi.wire.ArrayTail;
import dev.remora.rmi.wire.Frame;
import dev.remora.serializer.TypeCacheMode;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Two FabricTechnology ends in one JVM, negotiated over a loopback socket pair exactly as the router does: the
 * handshake, frames of every size class (header only, inject-sized, segmented, 100 MB), timeouts, malformed
 * frames, the TCP liveness signal, and the fall back to the socket technology. Skipped with the cause when
 * libfabric is unavailable here.
 */
@Timeout(value = 60, unit = TimeUnit.SECONDS)
class FabricLinkTest {
    private static final int MAX = 256 * 1024 * 1024;
    private final List<String> notes = new CopyOnWriteArrayList<>();
    private final RouterListener listener = new RouterListener() {
        @Override
        public void bytes(long out, long in) {
        }

        @Override
        public void note(String key, String message) {
            notes.add(key + ": " + message);
        }

        @Override
        public void debug(String message) {
            chosen.add(message);
        }
    };
    private final List<String> chosen = new CopyOnWriteArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private Socket a;
    private Socket b;
    private Link client;
    private Link server;

    @BeforeEach
    void pair() throws IOException {
        assumeTrue(Fabric.isAvailable(), () -> "libfabric unavailable, fabric link tests skipped: "
                + Fabric.unavailabilityCause().getMessage());
        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            a = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
            b = ss.accept();
        }
    }

    @AfterEach
    void close() throws IOException {
        closeLinks();
        pool.shutdownNow();
    }

    private void closeLinks() throws IOException {
        if (client != null) {
            client.close();
        }
        if (server != null) {
            server.close();
        }
        if (a != null) {
            a.close();
            b.close();
        }
    }

    private FabricTechnology technology(String provider) {
        return new FabricTechnology(new FabricTechnology.Settings(true, true, provider, null, 1_000_000, MAX, 5000,
                listener), new SocketTechnology(MAX, 0));
    }

    private void open(String provider) throws Exception {
        open(technology(provider));
    }

    private void open(FabricTechnology t) throws Exception {
        open(t, t);
    }

    private void open(FabricTechnology clientSide, FabricTechnology serverSide) throws Exception {
        assertTrue(clientSide.available());
        Future<Link> s = pool.submit(() -> serverSide.open(b, false));
        client = clientSide.open(a, true);
        server = s.get(10, TimeUnit.SECONDS);
    }

    private static FrameBuffer frame(byte kind, int callId, int payload) {
        FrameBuffer f = new FrameBuffer(64);
        Frame.begin(f, kind, (byte) 0, callId);
        byte[] body = new byte[payload];
        for (int i = 0; i < payload; i++) {
            body[i] = (byte) (i * 31 + 7);
        }
        f.write(body, 0, payload);
        Frame.finish(f);
        return f;
    }

    /** Sends from one thread while the peer receives on this one (shm progresses only while its receiver polls). */
    private FrameBuffer roundOne(Link tx, Link rx, FrameBuffer f, FrameBuffer into) throws Exception {
        Future<?> sent = pool.submit(() -> {
            tx.send(f);
            return null;
        });
        FrameBuffer got = rx.receive((kind, id, len) -> into, 20_000);
        sent.get(20, TimeUnit.SECONDS);
        return got;
    }

    @Test
    void sameHostPicksShmAndFramesOfEverySizeArriveWhole() throws Exception {
        open("auto");
        assertInstanceOf(FabricLink.class, client);
        assertEquals("shm", ((FabricLink) client).provider());
        FrameBuffer into = new FrameBuffer(16);
        int[] payloads = {0, 64, 1 << 20, 100 << 20};
        int id = 1;
        for (int p : payloads) {
            FrameBuffer f = frame(Frame.CALL, id, p);
            FrameBuffer got = roundOne(client, server, f, into);
            assertEquals(Frame.HEADER + p, got.length());
            assertEquals(id, FrameBuffer.getInt(got.array(), Frame.OFF_CALL_ID));
            assertEquals(Frame.CALL, got.array()[Frame.OFF_KIND]);
            for (int i = Frame.HEADER; i < got.length(); i += Math.max(1, p / 4096)) {
                assertEquals(f.array()[i], got.array()[i], "byte " + i + " of a " + p + " byte payload");
            }
            // and back
            FrameBuffer r = frame(Frame.REPLY, id, p);
            FrameBuffer back = roundOne(server, client, r, into);
            assertEquals(Frame.HEADER + p, back.length());
            if (p > 0) {
                assertEquals(r.array()[r.length() - 1], back.array()[back.length() - 1]);
            }
            id++;
        }
        assertTrue(notes.isEmpty(), notes.toString());
        assertHoldsNoMessageSizedBuffers();
    }

    /**
     * Frames of any size leave no native buffer of their size behind: sent whole, a 100 MB frame kept a staging buffer
     * and a receive buffer of 100 MB each for the endpoint's life.
     */
    private void assertHoldsNoMessageSizedBuffers() {
        for (Link l : new Link[] {client, server}) {
            long held = ((FabricLink) l).heldBytes();
            assertTrue(held <= 8 << 20, "native buffers held: " + held + " bytes");
        }
    }

    /** A frame whose payload is a tail (head and tail gathered into one message), eager and segmented sizes. */
    /**
     * On one host both sides offer their send rings and map each other's: frames above the inject size are then read
     * where the sender staged them. remora.fabric.shared=false on either side keeps both directions on libfabric's
     * CMA copy, silently, and frames arrive whole either way; so does remora.fabric.ring=0 (no ring to share) on the
     * server (the client then sends through its ring, the server by CMA).
     */
    @Test
    void sameHostLinksShareRingsUnlessEitherSideTurnsThemOff() throws Exception {
        for (int off = 0; off < 4; off++) { // 0: none off, 1: client off, 2: server off, 3: server without a ring
            FabricTechnology on = technology("auto");
            FabricTechnology disabled = off == 3 ? new FabricTechnology(new FabricTechnology.Settings(true, true,
                    "auto", FabricOptions.defaults().withSendRingBytes(0), 1_000_000, MAX, 5000, listener),
                    new SocketTechnology(MAX, 0))
                    : new FabricTechnology(new FabricTechnology.Settings(true, true, "auto", null, 1_000_000, MAX,
                    5000, listener).withSharedRings(false), new SocketTechnology(MAX, 0));
            if (off > 0) {
                closeLinks();
                pair();
            }
            open(off == 1 ? disabled : on, off >= 2 ? disabled : on);
            assertEquals(off == 0, ((FabricLink) client).sharedRings(), "client, case " + off);
            assertEquals(off == 0, ((FabricLink) server).sharedRings(), "server, case " + off);
            FrameBuffer into = new FrameBuffer(16);
            for (int p : new int[] {5_000, 100_000, 2 << 20}) {
                FrameBuffer f = frame(Frame.CALL, p, p);
                FrameBuffer got = roundOne(client, server, f, into);
                assertEquals(Frame.HEADER + p, got.length());
                for (int i = 0; i < got.length(); i++) {
                    assertEquals(f.array()[i], got.array()[i], "byte " + i + " of " + p + ", case " + off);
                }
                FrameBuffer r = frame(Frame.REPLY, p, p + 1);
                FrameBuffer back = roundOne(server, client, r, into);
                assertEquals(Frame.HEADER + p + 1, back.length());
                for (int i = 0; i < back.length(); i++) {
                    assertEquals(r.array()[i], back.array()[i], "byte " + i + " of reply " + p + ", case " + off);
                }
            }
        }
        assertTrue(notes.isEmpty(), notes.toString());
    }

    @Test
    void framesWithATailArriveWhole() throws Exception {
        open("auto");
        FrameBuffer into = new FrameBuffer(16);
        int id = 1;
        for (int p : new int[] {20_000, 100_000, 3 << 20}) {
            byte[] body = new byte[p + 5];
            for (int i = 0; i < body.length; i++) {
                body[i] = (byte) (i * 13 + p);
            }
            FrameBuffer f = new FrameBuffer(64).allowTail();
            Frame.begin(f, Frame.REPLY, (byte) 0, id);
            f.writeInt(0x5EED);
            f.setTail(new ArrayTail(body, 5, p));
            Frame.finish(f);
            FrameBuffer got = roundOne(server, client, f, into);
            assertEquals(Frame.HEADER + 4 + p, got.length());
            assertEquals(id, FrameBuffer.getInt(got.array(), Frame.OFF_CALL_ID));
            assertEquals(0x5EED, FrameBuffer.getInt(got.array(), Frame.HEADER));
            for (int i = 0; i < p; i += 997) {
                assertEquals(body[5 + i], got.array()[Frame.HEADER + 4 + i], "byte " + i + " of a " + p + " byte tail");
            }
            assertEquals(body[4 + p], got.array()[got.length() - 1]);
            id++;
        }
        assertTrue(notes.isEmpty(), notes.toString());
    }

    /** Tails of many pieces (the writer's bytes, arrays of several types) are gathered into one message. */
    @Test
    void tailsOfManyPiecesArriveInOrder() throws Exception {
        open("auto");
        FastChannel writer = new FastChannel(TypeCacheMode.CONNECTION);
        FastChannel reader = new FastChannel(TypeCacheMode.CONNECTION);
        for (int seed = 0; seed < 3; seed++) {
            int s = seed;
            Future<?> sent = pool.submit(() -> {
                TailFixtures.send(writer, client, s);
                return null;
            });
            FrameBuffer got = server.receive((k, id, len) -> new FrameBuffer(16), 20_000);
            sent.get(20, TimeUnit.SECONDS);
            assertEquals(seed, FrameBuffer.getInt(got.array(), Frame.OFF_CALL_ID));
            TailFixtures.check(reader, got, seed);
        }
        assertTrue(notes.isEmpty(), notes.toString());
    }

    @Test
    void tcpProviderWhenForced() throws Exception {
        assumeTrue(Fabric.providers().contains("tcp;ofi_rxm"), "no tcp;ofi_rxm provider here");
        open("tcp");
        assertEquals("tcp;ofi_rxm", ((FabricLink) client).provider());
        FrameBuffer got = roundOne(client, server, frame(Frame.ONEWAY, 3, 300_000), new FrameBuffer(16));
        assertEquals(Frame.HEADER + 300_000, got.length());
    }

    @Test
    void receiveTimesOutAsASocketDoes() throws Exception {
        open("auto");
        assertThrows(SocketTimeoutException.class, () -> server.receive((k, id, len) -> new FrameBuffer(16), 20));
        assertTrue(server.isOpen());
    }

    /**
     * The server link's receive, with no timeout on a pool thread, checked to be still blocked 50 ms later: its future
     * holds what it threw.
     */
    private Future<Throwable> blockedReceive() throws InterruptedException {
        Future<Throwable> blocked = pool.submit(() -> {
            try {
                server.receive((k, id, len) -> new FrameBuffer(16), 0);
                return null;
            } catch (Throwable t) {
                return t;
            }
        });
        Thread.sleep(50);
        assertFalse(blocked.isDone());
        return blocked;
    }

    @Test
    void peerClosingTheTcpConnectionFailsABlockedReceivePromptly() throws Exception {
        open("auto");
        Future<Throwable> blocked = blockedReceive();
        long t0 = System.nanoTime();
        client.close();
        Throwable t = blocked.get(5, TimeUnit.SECONDS);
        long ms = (System.nanoTime() - t0) / 1_000_000;
        assertInstanceOf(EOFException.class, t);
        assertTrue(t.getMessage().contains("closed by the peer"), t.getMessage());
        assertTrue(ms < 2000, "took " + ms + " ms");
        assertFalse(server.stillOpen());
        assertThrows(EOFException.class, () -> server.send(frame(Frame.REPLY, 1, 8)));
    }

    /**
     * Remora's own code failing while it gathers a frame's tail (here a piece that is no primitive array, as a bug of
     * its own would give): the sender is told the frame did not leave whole, the link is closed, and the peer's
     * blocked receive ends with the end of the connection instead of waiting for a frame that will not come.
     */
    @Test
    void aFrameRemoraFailsToSendWholeClosesTheLink() throws Exception {
        open("auto");
        Future<Throwable> blocked = blockedReceive();
        int size = 100_000;
        FrameBuffer f = new FrameBuffer(64).allowTail();
        Frame.begin(f, Frame.CALL, (byte) 0, 5);
        f.setTail(new ArrayTail(new byte[size], 0, size) {
            @Override
            public Object piece(int i) {
                return "a bug of Remora's"; // the gather refuses it
            }
        });
        Frame.finish(f);
        Link.NotSent e = assertThrows(Link.NotSent.class, () -> client.send(f));
        assertTrue(e.getMessage().contains("whole"), e.getMessage());
        assertFalse(client.isOpen());
        assertInstanceOf(EOFException.class, blocked.get(5, TimeUnit.SECONDS));
    }

    /**
     * At JVM exit (remora.exit.fast) every thread the links keep in native code must leave it, or the JVM waits up to
     * 300 ms for it: a receive blocked in libfabric ends with end of stream, both liveness watchers end, and nothing is
     * reported (an exit is no peer failure).
     */
    @Test
    void releasingForExitEndsABlockedReceiveAndTheWatchersQuietly() throws Exception {
        open("auto");
        Future<Throwable> blocked = blockedReceive();
        assertTrue(watchers() >= 2, "liveness watchers running: " + watchers());
        assertTrue(FabricLink.releaseAllForExit() >= 2);
        assertInstanceOf(EOFException.class, blocked.get(5, TimeUnit.SECONDS));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
        while (watchers() > 0 && System.nanoTime() < deadline) {
            Thread.sleep(10);
        }
        assertEquals(0, watchers(), "liveness watchers left");
        assertEquals(List.of(), notes);
        assertEquals(0, FabricLink.releaseAllForExit(), "released links stay released");
    }

    private static long watchers() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(t -> t.getName().startsWith("remora-fabric-watch-") && t.isAlive()).count();
    }

    /**
     * The liveness connection's watcher reads timed, as socket links do (see Link#READ_FOREVER_MILLIS), and waits
     * through the stand-in timeout: bells still come after it has expired.
     */
    @Test
    void theWatchersReadTimedAndBellsStillCome() throws Exception {
        open(sleeping(1_000_000, false));
        assertEquals(Link.READ_FOREVER_MILLIS, a.getSoTimeout());
        assertEquals(Link.READ_FOREVER_MILLIS, b.getSoTimeout());
        a.setSoTimeout(20); // the watcher's read now expires every 20 ms; it must keep reading
        b.setSoTimeout(20);
        Thread.sleep(100);
        idleThenSend(2);
        assertTrue(((FabricLink) server).sleepRequests() >= 1, "no bell asked for");
    }

    /**
     * Idle links cost no CPU: without shared rings a receiver idle for longer than remora.fabric.sleep (here 1 ms)
     * asks its peer to ring and sleeps until then. The endpoints' safety-net wake-up is 30 s here, so frames that
     * arrive in time, in both directions and after repeated idle stretches, came by the bell.
     */
    @Test
    void anIdleReceiverSleepsUntilThePeerRings() throws Exception {
        open(sleeping(1_000_000, false));
        idleThenSend(3);
        assertTrue(((FabricLink) server).sleepRequests() >= 2 && ((FabricLink) client).sleepRequests() >= 1);
    }

    /**
     * Over shared rings an idle receiver blocks on its ring's futex, which the peer's next post wakes: it asks for no
     * bell (each cost a byte each way and a wake-up of both watcher threads, late on a busy machine), and still costs
     * no CPU while idle.
     */
    @Test
    void anIdleReceiverOnASharedRingBlocksWithoutBells() throws Exception {
        open(sleeping(1_000_000, true));
        assertTrue(((FabricLink) client).sharedRings() && ((FabricLink) server).sharedRings());
        idleThenSend(3);
        assertEquals(0, ((FabricLink) server).sleepRequests());
        assertEquals(0, ((FabricLink) client).sleepRequests());
    }

    /** A peer that never sleeps itself (remora.fabric.sleep=0) still rings for one that does. */
    @Test
    void aPeerThatNeverSleepsStillRings() throws Exception {
        open(sleeping(0, false), sleeping(1_000_000, false));
        idleThenSend(1); // round 0: the client (sleep 0) sends to the idle server
        assertEquals(1, ((FabricLink) server).sleepRequests());
    }

    /**
     * Short idle stretches, each ending in a sleep request, a promise and a ring a few ms apart: with Nagle's
     * algorithm on the liveness connection a ring waited for the ACK of the promise, which the peer delays by 40 ms,
     * and calls in a 4-thread benchmark stalled 30-46 ms about 30 times in 5 s.
     */
    @Test
    void bellsLeaveAtOnce() throws Exception {
        open(sleeping(1_000_000, false));
        assertTrue(a.getTcpNoDelay() && b.getTcpNoDelay(), "Nagle's algorithm left on for the bells");
        long[] took = new long[21];
        for (int i = 0; i < took.length; i++) {
            Future<FrameBuffer> got = pool.submit(() -> server.receive((k, id, len) -> new FrameBuffer(16), 0));
            Thread.sleep(5); // idle: the server asks for a ring and is promised one
            long t0 = System.nanoTime();
            client.send(frame(Frame.CALL, i, 8));
            assertEquals(i, FrameBuffer.getInt(got.get(10, TimeUnit.SECONDS).array(), Frame.OFF_CALL_ID));
            took[i] = (System.nanoTime() - t0) / 1_000;
        }
        java.util.Arrays.sort(took);
        assertTrue(took[took.length / 2] < 20_000, "median frame after a ring took " + took[took.length / 2] + " us: "
                + java.util.Arrays.toString(took));
    }

    /** The technology with the given remora.fabric.sleep and shared rings, and a 30 s safety net on deep sleeps. */
    private FabricTechnology sleeping(long sleepNanos, boolean shared) {
        return new FabricTechnology(new FabricTechnology.Settings(true, true, "shm",
                FabricOptions.defaults().withDeepSleepNanos(30_000_000_000L), sleepNanos, MAX, 5000, listener)
                .withSharedRings(shared), new SocketTechnology(MAX, 0));
    }

    /** Rounds of: a receive idle for 1.2 s, then a frame; even rounds client to server, odd ones back. */
    private void idleThenSend(int rounds) throws Exception {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        for (int round = 0; round < rounds; round++) {
            Link tx = round % 2 == 0 ? client : server;
            Link rx = round % 2 == 0 ? server : client;
            java.util.concurrent.CompletableFuture<Long> receiver = new java.util.concurrent.CompletableFuture<>();
            Future<FrameBuffer> got = pool.submit(() -> {
                receiver.complete(Thread.currentThread().getId());
                return rx.receive((k, id, len) -> new FrameBuffer(16), 0);
            });
            long tid = receiver.get(5, TimeUnit.SECONDS);
            Thread.sleep(200); // the receiver asks for a ring and is promised one
            long idleStart = mx.getThreadCpuTime(tid);
            Thread.sleep(1000);
            long idleCpu = mx.getThreadCpuTime(tid) - idleStart;
            assertFalse(got.isDone());
            tx.send(frame(Frame.CALL, round, 100));
            FrameBuffer f = got.get(10, TimeUnit.SECONDS); // the 30 s deep sleep ended at once: the bell
            assertEquals(round, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
            // napping up to 1 ms costs about 15 ms of CPU a second; asleep on the eventfd, next to nothing
            assertTrue(idleCpu < 5_000_000, "an idle receiver used " + idleCpu / 1000 + " us of CPU in 1 s");
        }
        assertTrue(notes.isEmpty(), notes.toString());
    }

    /** A run of frames in one message (remora.async.batch over fabric) is handed out frame by frame, in order. */
    @Test
    void aMessageOfSeveralFramesArrivesAsThoseFrames() throws Exception {
        open("auto");
        assertTrue(client.carriesFrameRuns());
        FrameBuffer run = new FrameBuffer(64);
        int[] payloads = {0, 30, 7, 100};
        for (int i = 0; i < payloads.length; i++) {
            FrameBuffer f = frame(Frame.ONEWAY, i + 1, payloads[i]);
            run.write(f.array(), 0, f.length());
        }
        Future<?> sent = pool.submit(() -> {
            client.send(run);
            client.send(frame(Frame.CALL, 9, 5)); // the next message comes after the run
            return null;
        });
        for (int i = 0; i < payloads.length; i++) {
            FrameBuffer got = server.receive((k, id, len) -> new FrameBuffer(16), 5000);
            assertEquals(Frame.HEADER + payloads[i], got.length(), "frame " + i);
            assertEquals(i + 1, FrameBuffer.getInt(got.array(), Frame.OFF_CALL_ID));
            assertEquals(Frame.ONEWAY, got.array()[Frame.OFF_KIND]);
        }
        FrameBuffer last = server.receive((k, id, len) -> new FrameBuffer(16), 5000);
        assertEquals(9, FrameBuffer.getInt(last.array(), Frame.OFF_CALL_ID));
        sent.get(5, TimeUnit.SECONDS);
        // a run whose last frame is cut short is malformed
        FrameBuffer cut = new FrameBuffer(64);
        FrameBuffer whole = frame(Frame.ONEWAY, 1, 10);
        cut.write(whole.array(), 0, whole.length());
        cut.write(whole.array(), 0, whole.length() - 3);
        Future<?> cutSent = pool.submit(() -> {
            client.send(cut);
            return null;
        });
        assertEquals(1, FrameBuffer.getInt(server.receive((k, id, len) -> new FrameBuffer(16), 5000).array(),
                Frame.OFF_CALL_ID));
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> server.receive((k, id, len) -> new FrameBuffer(16), 5000));
        cutSent.get(5, TimeUnit.SECONDS);
        assertTrue(e.getMessage().contains("run of frames"), e.getMessage());
        assertFalse(server.isOpen());
    }

    /**
     * A frame longer than a chunk goes as several messages, cut inside the application's arrays at their elements'
     * boundaries (an odd head puts every cut in the middle of a long): over shared rings and over libfabric's copy.
     */
    @Test
    void framesLongerThanAChunkArriveWholeInSeveralMessages() throws Exception {
        for (boolean shared : new boolean[] {true, false}) {
            if (!shared) {
                closeLinks();
                pair();
            }
            FabricTechnology t = new FabricTechnology(new FabricTechnology.Settings(true, true, "auto", null,
                    1_000_000, MAX, 5000, listener).withSharedRings(shared), new SocketTechnology(MAX, 0));
            open(t);
            assertEquals(shared, ((FabricLink) client).sharedRings());
            FastChannel writer = new FastChannel(TypeCacheMode.CONNECTION);
            FastChannel reader = new FastChannel(TypeCacheMode.CONNECTION);
            for (int id = 1; id <= 3; id++) {
                int seed = id;
                Future<FrameBuffer> got = pool.submit(() -> server.receive((k, i, len) -> new FrameBuffer(16), 20_000));
                int sent = TailFixtures.sendLarge(writer, client, seed, pool);
                assertTrue(sent > 4 * FabricLink.CHUNK, "frame " + sent);
                FrameBuffer f = got.get(20, TimeUnit.SECONDS);
                assertEquals(sent - TailFixtures.LARGE_LONGS - TailFixtures.LARGE_DOUBLES - TailFixtures.LARGE_BYTES,
                        f.length());
                TailFixtures.checkLarge(reader, f, seed, 3);
            }
            assertHoldsNoMessageSizedBuffers();
        }
        assertTrue(notes.isEmpty(), notes.toString());
    }

    /**
     * A chunked frame whose map is wrong, whose rest does not fit or never comes, or whose header disagrees with its
     * map closes the link with a clear error.
     */
    @Test
    void aChunkedFrameThatDoesNotAddUpClosesTheLink() throws Exception {
        String[] cases = {"map", "overflow", "missing", "header"};
        for (int c = 0; c < cases.length; c++) {
            if (c > 0) {
                closeLinks();
                pair();
            }
            open("auto");
            String what = cases[c];
            FrameBuffer map = new FrameBuffer(64);
            map.writeInt(0);
            map.writeInt(1000); // the frame's length
            map.writeInt(what.equals("map") ? 1 : 0); // one array apart, but no entry for it
            map.writeInt(Frame.CALL << 16);
            map.writeInt(7); // call id
            FrameBuffer data = frame(Frame.CALL, what.equals("header") ? 8 : 7,
                    (what.equals("overflow") ? 1020 : 1000) - Frame.HEADER);
            if (!what.equals("overflow")) {
                data.putInt(0, 1000);
            }
            Future<?> sent = pool.submit(() -> {
                client.send(map);
                if (!what.equals("missing") && !what.equals("map")) {
                    client.send(data);
                }
                return null;
            });
            IOException e = assertThrows(IOException.class,
                    () -> server.receive((k, id, len) -> new FrameBuffer(16), 1000), what);
            sent.get(5, TimeUnit.SECONDS);
            String m = e.getMessage();
            switch (what) {
                case "map":
                    assertTrue(m.contains("a map of 20 bytes for a frame of 1000 bytes"), m);
                    break;
                case "overflow":
                    assertTrue(m.contains("1020 bytes where 1000 bytes"), m);
                    break;
                case "missing":
                    assertInstanceOf(SocketTimeoutException.class, e);
                    assertTrue(m.contains("the rest of a frame of 1000 bytes"), m);
                    break;
                default:
                    assertTrue(m.contains("its header disagrees with its map"), m);
            }
            assertFalse(server.isOpen(), what);
        }
    }

    @Test
    void malformedFrameClosesTheLink() throws Exception {
        open("auto");
        FrameBuffer bad = frame(Frame.CALL, 1, 20);
        bad.putInt(0, 5000); // header length disagrees with the message
        Future<?> sent = pool.submit(() -> {
            client.send(bad);
            return null;
        });
        MalformedFrameException e = assertThrows(MalformedFrameException.class,
                () -> server.receive((k, id, len) -> new FrameBuffer(16), 5000));
        sent.get(5, TimeUnit.SECONDS);
        assertTrue(e.getMessage().contains("malformed Remora frame"), e.getMessage());
        assertFalse(server.isOpen());
    }

    /**
     * Two hosts that share only libfabric's tcp provider: remora.transport=auto uses Remora's socket transport (faster
     * there, docs/transports.md), says why at debug level and warns of nothing; remora.transport=fabric uses tcp.
     */
    /**
     * The handshake ends with a probe message each way over the new endpoints: when one cannot reach the other (here
     * the server sends none, as when libfabric cannot map its peer's region), both run the socket technology over
     * the connection instead of a fabric link whose first send would wait out the send timeout (30 s) and lose the
     * call.
     */
    @Test
    void aProbeThatDoesNotArriveMakesBothSidesUseTheSocketTransport() throws Exception {
        FabricTechnology clientSide = technology("shm");
        FabricTechnology serverSide = technology("shm");
        serverSide.sendNoProbe = true;
        long start = System.nanoTime();
        open(clientSide, serverSide);
        long millis = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
        assertFalse(client instanceof FabricLink, client::toString);
        assertFalse(server instanceof FabricLink, server::toString);
        assertTrue(millis < FabricTechnology.PROBE_WAIT_MILLIS + 3000, millis + " ms");
        assertEquals(Frame.HEADER + 100, roundOne(client, server, frame(Frame.CALL, 9, 100), new FrameBuffer(16))
                .length());
        assertEquals(Frame.HEADER + 5000, roundOne(server, client, frame(Frame.REPLY, 9, 5000), new FrameBuffer(16))
                .length());
        assertEquals(2, notes.stream().filter(n -> n.startsWith("fabric-handshake:") && n.contains("probe")).count(),
                notes::toString);
        assertTrue(notes.stream().anyMatch(n -> n.contains("did not arrive over shm within")), notes::toString);

        closeLinks(); // and with both probes, the same pair of technologies links over shm
        pair();
        notes.clear();
        serverSide.sendNoProbe = false;
        open(clientSide, serverSide);
        assertTrue(client instanceof FabricLink && server instanceof FabricLink, notes::toString);
        assertEquals(Frame.HEADER + 100, roundOne(client, server, frame(Frame.CALL, 10, 100), new FrameBuffer(16))
                .length());
        assertEquals(List.of(), notes);
    }

    @Test
    void autoBetweenTwoHostsPrefersTheSocketTransportOverLibfabricsTcp() throws Exception {
        assumeTrue(Fabric.providers().contains("tcp;ofi_rxm"), "no tcp;ofi_rxm provider here");
        FabricTechnology auto = new FabricTechnology(new FabricTechnology.Settings(false, true, "auto", null,
                1_000_000, MAX, 5000, listener), new SocketTechnology(MAX, 0)).hostsApart();
        open(auto);
        assertFalse(client instanceof FabricLink);
        assertFalse(server instanceof FabricLink);
        assertEquals(Frame.HEADER + 100, roundOne(client, server, frame(Frame.CALL, 9, 100), new FrameBuffer(16))
                .length());
        assertEquals(List.of(), notes, "a choice, not a fallback");
        assertEquals(2, chosen.stream().filter(c -> c.startsWith("socket transport to ")).count(), chosen::toString);

        closeLinks();
        pair();
        chosen.clear();
        open(technology("auto").hostsApart()); // remora.transport=fabric
        assertEquals("tcp;ofi_rxm", ((FabricLink) client).provider());
        assertEquals("tcp;ofi_rxm", ((FabricLink) server).provider());
        assertEquals(2, chosen.stream().filter(c -> c.startsWith("fabric link to ")).count(), chosen::toString);
    }

    /**
     * remora.transport=auto leaves libfabric out of the hello to a peer on another host unless this machine has an RDMA
     * device (verbs, efa): it decides without waiting for libfabric's probe. Forced fabric, a forced provider and a
     * peer on this host are always offered.
     */
    @Test
    void autoOffersFabricToAnotherHostOnlyWithAnRdmaDevice(@org.junit.jupiter.api.io.TempDir java.nio.file.Path tmp)
            throws Exception {
        assertFalse(FabricTechnology.rdmaDevices(tmp.resolve("absent")));
        assertFalse(FabricTechnology.rdmaDevices(tmp), "an empty class folder lists no device");
        java.nio.file.Files.createDirectory(tmp.resolve("mlx5_0"));
        assertTrue(FabricTechnology.rdmaDevices(tmp));

        try (ServerSocket ss = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
                Socket s = new Socket(InetAddress.getLoopbackAddress(), ss.getLocalPort());
                Socket accepted = ss.accept()) {
            FabricTechnology auto = new FabricTechnology(new FabricTechnology.Settings(false, true, "auto", null,
                    1_000_000, MAX, 5000, listener), new SocketTechnology(MAX, 0));
            assertTrue(auto.worthOffering(s), "a peer on this host: shm");
            auto.hostsApart();
            assertEquals(FabricTechnology.rdmaDevices(FabricTechnology.INFINIBAND), auto.worthOffering(s),
                    "another host: only with an RDMA device in " + FabricTechnology.INFINIBAND);
            assertTrue(technology("auto").hostsApart().worthOffering(s), "remora.transport=fabric: always");
            FabricTechnology tcp = new FabricTechnology(new FabricTechnology.Settings(false, true, "tcp", null,
                    1_000_000, MAX, 5000, listener), new SocketTechnology(MAX, 0)).hostsApart();
            assertTrue(tcp.worthOffering(s), "a provider named by remora.fabric.provider: always");
        }
    }

    @Test
    void unknownProviderFallsBackToTheSocketTechnologyOverTheSameConnection() throws Exception {
        open("no-such-provider");
        assertFalse(client instanceof FabricLink);
        assertFalse(server instanceof FabricLink);
        FrameBuffer got = roundOne(client, server, frame(Frame.CALL, 9, 100), new FrameBuffer(16));
        assertEquals(Frame.HEADER + 100, got.length());
        assertTrue(notes.stream().anyMatch(n -> n.contains("remora.fabric.provider=no-such-provider")), notes.toString());
        assertTrue(notes.stream().anyMatch(n -> n.contains("socket transport")), notes.toString());
    }

    @Test
    void nativeDisabledIsUnavailableWithoutFailing() {
        FabricTechnology t = new FabricTechnology(new FabricTechnology.Settings(true, false, "auto", null, 1_000_000,
                MAX, 5000, listener), new SocketTechnology(MAX, 0));
        assertFalse(t.available());
        assertEquals(1, notes.size(), notes.toString());
        assertTrue(notes.get(0).contains("remora.native=false"), notes.get(0));
    }

    @Test
    void sameHostJudgedFromTheConnection() {
        assertTrue(dev.remora.rmi.transport.Technology.sameHost(a));
        assertTrue(dev.remora.rmi.transport.Technology.sameHost(b));
        assertEquals("tcp;ofi_rxm", FabricTechnology.fullName("tcp"));
        assertEquals("shm", FabricTechnology.fullName("shm"));
    }
}
