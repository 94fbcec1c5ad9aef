package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterListener;
import dev.remora.rmi.wire.ArrayTail;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The Unix domain socket technology: its handshake over a loopback TCP pair, frames over the socket it leaves (the
 * link's timed waits, its close and the JVM's exit waking a waiting reader), and each way the handshake falls back to
 * TCP with both sides still in step.
 */
class UnixTechnologyTest {
    private static final int MAGIC = 0x524d5558;

    @TempDir
    Path tmp;
    private Socket a;
    private Socket b;
    private final List<String> said = new CopyOnWriteArrayList<>();
    private final ExecutorService pool = Executors.newCachedThreadPool();
    private final RouterListener listener = new RouterListener() {
        @Override
        public void bytes(long out, long in) {
        }

        @Override
        public void note(String key, String message) {
            said.add(key + ": " + message);
        }
    };

    @BeforeEach
    void pair() throws IOException {
        Socket[] p = SocketLinkTest.loopbackPair();
        a = p[0];
        b = p[1];
    }

    @AfterEach
    void close() throws IOException {
        a.close();
        b.close();
        pool.shutdownNow();
    }

    private UnixTechnology unix(long spin) {
        return new UnixTechnology(new SocketTechnology(1 << 22, spin), 1 << 22, 5000, listener,
                tmp.resolve("remora-test"));
    }

    /** Both ends of the pair, each side's handshake on a thread of its own: {client, server}. */
    private Link[] open(UnixTechnology client, UnixTechnology server) throws Exception {
        Future<Link> c = pool.submit(() -> client.open(a, true));
        Link s = server.open(b, false);
        return new Link[] {c.get(10, TimeUnit.SECONDS), s};
    }

    private static FrameBuffer frame(byte kind, int callId, int payload) {
        return SocketLinkTest.frame(kind, callId, payload);
    }

    private static FrameBuffer receive(Link rx, int timeoutMillis) throws IOException {
        return rx.receive((kind, id, len) -> new FrameBuffer(16), timeoutMillis);
    }

    /** Frames of every size both ways, in order: bigger than a read or write piece, with a tail of 1 MB. */
    private void exchange(Link tx, Link rx) throws Exception {
        byte[] body = new byte[1_000_003];
        for (int i = 0; i < body.length; i++) {
            body[i] = (byte) (i * 7);
        }
        Future<?> sent = pool.submit(() -> {
            tx.send(frame(Frame.CALL, 7, 30));
            tx.send(frame(Frame.REPLY, 8, 300_000)); // more than the socket's buffer and a 128 KB piece
            FrameBuffer f = new FrameBuffer(64).allowTail();
            Frame.begin(f, Frame.REPLY, (byte) 0, 9);
            f.setTail(new ArrayTail(body, 3, 1_000_000));
            Frame.finish(f);
            tx.send(f);
            return null;
        });
        assertEquals(7, FrameBuffer.getInt(receive(rx, 5000).array(), Frame.OFF_CALL_ID));
        FrameBuffer f = receive(rx, 5000);
        assertEquals(Frame.HEADER + 300_000, f.length());
        assertEquals((byte) 299_999, f.array()[f.length() - 1]);
        f = receive(rx, 5000);
        assertEquals(Frame.HEADER + 1_000_000, f.length());
        for (int i = 0; i < 1_000_000; i += 997) {
            assertEquals(body[i + 3], f.array()[Frame.HEADER + i], "byte " + i);
        }
        sent.get(10, TimeUnit.SECONDS);
    }

    @ParameterizedTest
    @ValueSource(longs = {0, 50_000})
    void twoEndsOfOneHostTalkOverAUnixDomainSocket(long spin) throws Exception {
        UnixTechnology t = unix(spin);
        assertTrue(t.worthOffering(a), "a loopback peer is on this host");
        Link[] l = open(t, unix(spin));
        for (Link x : l) {
            assertTrue(((SocketLink) x).overUnixSocket(), x.toString());
            assertEquals("unix", Technology.kind(x));
            assertTrue(x.peer().endsWith("/unix"), x.peer());
        }
        assertTrue(a.isClosed() && b.isClosed(), "the TCP connection is closed once the link has its own socket");
        exchange(l[0], l[1]);
        exchange(l[1], l[0]);
        assertTrue(l[1].stillOpen());
        try (var names = Files.list(tmp.resolve("remora-test"))) {
            assertEquals(0, names.count(), "the socket's name is gone once it is connected");
        }
        assertEquals("rwx------",
                PosixFilePermissions.toString(Files.getPosixFilePermissions(tmp.resolve("remora-test"))));
        assertEquals(List.of(), said);
        l[0].close();
        assertThrows(EOFException.class, () -> receive(l[1], 5000));
        assertFalse(l[1].stillOpen());
    }

    /** The sockets' directory keeps the name it had (README: {@code java.io.tmpdir/remora-USER}), user name and all. */
    @ParameterizedTest
    @ValueSource(strings = {"alice", "Bob.Smith_2-x", "d\u00e9j\u00e0 vu", "a/b\\c:d", "\ud83d\ude00", "x\ud800y\udc00", "",
        "..", "tab\there"})
    void theSocketDirectoryTakesTheUserNameAsTheRegularExpressionWouldHave(String user) {
        assertEquals(user.replaceAll("[^A-Za-z0-9._-]", "_"), UnixTechnology.fileNamePart(user));
    }

    /** A timed wait ends after its time and not before; a frame that comes after the spin still wakes the reader. */
    @Test
    void aTimedWaitEndsAndAFrameAfterItStillArrives() throws Exception {
        Link[] l = open(unix(2_000_000), unix(2_000_000));
        long t0 = System.nanoTime();
        assertThrows(SocketTimeoutException.class, () -> receive(l[1], 30));
        assertTrue(System.nanoTime() - t0 >= 30_000_000L, "timed out before the timeout");
        Future<?> late = pool.submit(() -> {
            Thread.sleep(20);
            l[0].send(frame(Frame.CALL, 11, 10));
            return null;
        });
        FrameBuffer f = receive(l[1], 5000);
        late.get();
        assertEquals(11, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
        assertTrue(l[1].isOpen());
    }

    /**
     * An interrupted thread's wait goes on as a socket read does (a selector, or a virtual thread's park, would return
     * at once for it, again and again): it takes next to no CPU, gets its frame, and keeps its interrupt. Likewise a
     * sender waiting for room.
     */
    @Test
    void anInterruptedThreadWaitsWithoutSpinningAndKeepsItsInterrupt() throws Exception {
        Link[] l = open(unix(0), unix(0));
        Future<?> late = pool.submit(() -> {
            Thread.sleep(500);
            l[0].send(frame(Frame.CALL, 41, 10));
            return null;
        });
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        Future<long[]> got = pool.submit(() -> {
            Thread.currentThread().interrupt();
            long cpu0 = mx.getCurrentThreadCpuTime();
            FrameBuffer f = receive(l[1], 5000);
            long cpu = mx.getCurrentThreadCpuTime() - cpu0;
            return new long[] {FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID), cpu, Thread.interrupted() ? 1 : 0};
        });
        long[] r = got.get(10, TimeUnit.SECONDS);
        late.get();
        assertEquals(41, r[0]);
        assertEquals(1, r[2], "the interrupt is kept");
        assertTrue(r[1] < 200_000_000L, "a wait of 500 ms took " + r[1] / 1_000_000 + " ms of CPU");

        Future<long[]> sending = pool.submit(() -> {
            FrameBuffer big = frame(Frame.REPLY, 42, 3_000_000); // more than the socket holds
            Thread.currentThread().interrupt();
            long cpu0 = mx.getCurrentThreadCpuTime();
            l[0].send(big); // the receiver reads it only after 500 ms
            return new long[] {mx.getCurrentThreadCpuTime() - cpu0, Thread.interrupted() ? 1 : 0};
        });
        Thread.sleep(500);
        FrameBuffer f = receive(l[1], 5000);
        assertEquals(42, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
        long[] s = sending.get(10, TimeUnit.SECONDS);
        assertEquals(1, s[1], "the interrupt is kept");
        assertTrue(s[0] < 300_000_000L, "a send that waited 500 ms took " + s[0] / 1_000_000 + " ms of CPU");
    }

    /**
     * Closing a link wakes its reader, waiting without a timeout, at once (not at the end of its longest single wait,
     * a second), and the peer reads the end of the connection.
     */
    @Test
    void closingALinkWakesItsReaderAndThePeerSeesTheEnd() throws Exception {
        Link[] l = open(unix(0), unix(0));
        CompletableFuture<Throwable> ended = new CompletableFuture<>();
        Thread reader = new Thread(() -> {
            try {
                receive(l[1], 0);
                ended.complete(null);
            } catch (Throwable e) {
                ended.complete(e);
            }
        });
        reader.start();
        Thread.sleep(100); // waiting in poll by now
        long t0 = System.nanoTime();
        l[1].close();
        Throwable e = ended.get(5, TimeUnit.SECONDS);
        long woke = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(woke < 500, "the reader woke " + woke + " ms after the close");
        assertTrue(e instanceof IOException, String.valueOf(e));
        assertFalse(l[1].isOpen());
        assertThrows(EOFException.class, () -> receive(l[0], 5000));
        long seen = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(seen < 500, "the peer saw the end " + seen + " ms after the close");
    }

    /** A sender waiting for a peer that does not read (its socket full) is woken by the link's close, at once. */
    @Test
    void closingALinkWakesASenderWaitingForRoom() throws Exception {
        Link[] l = open(unix(0), unix(0));
        Future<?> sending = pool.submit(() -> {
            l[0].send(frame(Frame.REPLY, 1, 50_000)); // fits: the first write does not wait
            l[0].send(frame(Frame.REPLY, 2, 8_000_000)); // far more than the socket holds; nobody reads
            return null;
        });
        Thread.sleep(200);
        assertFalse(sending.isDone(), "the sender waits for room");
        long t0 = System.nanoTime();
        l[0].close();
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> sending.get(5, TimeUnit.SECONDS));
        long woke = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(woke < 500, "the sender woke " + woke + " ms after the close");
        assertTrue(e.getCause() instanceof IOException, String.valueOf(e.getCause()));
        assertEquals(1, FrameBuffer.getInt(receive(l[1], 5000).array(), Frame.OFF_CALL_ID));
    }

    /** At JVM exit a reader waiting on a link reads the end of the stream (no thread left waiting in native code). */
    @Test
    void exitingEndsAWaitingRead() throws Exception {
        UnixTechnology server = unix(0);
        Link[] l = open(unix(0), server);
        Future<?> waiting = pool.submit(() -> receive(l[1], 0));
        Thread.sleep(100);
        long t0 = System.nanoTime();
        assertEquals(1, server.exiting(), "one live link released");
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class,
                () -> waiting.get(5, TimeUnit.SECONDS));
        long woke = (System.nanoTime() - t0) / 1_000_000;
        assertTrue(woke < 500, "the reader woke " + woke + " ms after the exit hook");
        assertTrue(e.getCause() instanceof EOFException, String.valueOf(e.getCause()));
    }

    /** Frames over TCP after a handshake that fell back: both sides in step. */
    private void tcpStillWorks(Link client, Link server) throws Exception {
        assertFalse(((SocketLink) client).overUnixSocket());
        assertFalse(((SocketLink) server).overUnixSocket());
        assertEquals("socket", Technology.kind(client));
        client.send(frame(Frame.CALL, 31, 100));
        assertEquals(31, FrameBuffer.getInt(receive(server, 5000).array(), Frame.OFF_CALL_ID));
        server.send(frame(Frame.REPLY, 32, 100));
        assertEquals(32, FrameBuffer.getInt(receive(client, 5000).array(), Frame.OFF_CALL_ID));
    }

    /** A server whose socket the client cannot reach (another file system, a container): both stay on TCP. */
    @Test
    void aClientThatCannotReachTheServersSocketStaysOnTcp() throws Exception {
        Future<Link> c = pool.submit(() -> unix(0).open(a, true));
        DataOutputStream out = new DataOutputStream(b.getOutputStream());
        DataInputStream in = new DataInputStream(b.getInputStream());
        out.writeInt(MAGIC);
        out.writeByte(0);
        out.writeUTF(tmp.resolve("nowhere/r1.sock").toString());
        out.write(new byte[16]);
        assertEquals(MAGIC, in.readInt());
        assertEquals(1, in.readByte(), "the client says it stays on TCP");
        String why = in.readUTF();
        assertTrue(why.contains("could not connect to " + tmp.resolve("nowhere/r1.sock")), why);
        Link client = c.get(10, TimeUnit.SECONDS);
        tcpStillWorks(client, new SocketTechnology(1 << 20, 0).open(b, false));
        assertEquals(1, said.size(), said::toString);
        assertTrue(said.get(0).startsWith("unix-handshake:") && said.get(0).contains("uses Remora's socket transport"
                + " over TCP (remora.socket.unix=false skips the try)"), said::toString);
    }

    /** A connection to the server's socket that does not carry the token it sent over TCP: refused, both on TCP. */
    @Test
    void aConnectionWithoutTheTokenIsRefusedAndBothStayOnTcp() throws Exception {
        Future<Link> s = pool.submit(() -> unix(0).open(b, false));
        DataInputStream in = new DataInputStream(a.getInputStream());
        DataOutputStream out = new DataOutputStream(a.getOutputStream());
        assertEquals(MAGIC, in.readInt());
        assertEquals(0, in.readByte());
        String path = in.readUTF();
        byte[] token = new byte[16];
        in.readFully(token);
        token[0]++;
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(path));
            ch.write(ByteBuffer.wrap(token));
            out.writeInt(MAGIC);
            out.writeByte(0);
            assertEquals(MAGIC, in.readInt());
            assertEquals(1, in.readByte(), "the server refuses it");
            assertTrue(in.readUTF().contains("did not carry the token"));
            Link server = s.get(10, TimeUnit.SECONDS);
            assertEquals(-1, ch.read(ByteBuffer.allocate(1)), "the impostor's connection is closed");
            tcpStillWorks(new SocketTechnology(1 << 20, 0).open(a, true), server);
        }
        assertFalse(Files.exists(Path.of(path)), "the socket's name is gone");
    }

    /** A directory others may enter is not used: both stay on TCP, and the log names the directory and the fix. */
    @Test
    void aDirectoryOthersMayEnterIsRefused() throws Exception {
        Path dir = Files.createDirectory(tmp.resolve("remora-test"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwxr-xr-x"));
        Link[] l = open(unix(0), unix(0));
        tcpStillWorks(l[0], l[1]);
        assertEquals(2, said.size(), said::toString); // each side says it once
        assertTrue(said.stream().allMatch(m -> m.contains(dir + " is not a directory only its owner may enter")),
                said::toString);
    }

    @Test
    void aPeerOnAnotherHostIsNotOffered() throws Exception {
        InetAddress remote = InetAddress.getByAddress(new byte[] {10, 1, 2, 3});
        InetAddress local = InetAddress.getByAddress(new byte[] {10, 1, 2, 4});
        Socket s = new Socket() {
            @Override
            public InetAddress getInetAddress() {
                return remote;
            }

            @Override
            public InetAddress getLocalAddress() {
                return local;
            }
        };
        assertFalse(unix(0).worthOffering(s));
        assertArrayEquals(new byte[] {10, 1, 2, 3}, s.getInetAddress().getAddress());
    }

    /**
     * A JVM whose java.base does not export sun.nio.ch to Remora (no agent, or the export refused) does not offer the
     * technology, and says so once, as a fallback: its connections stay on TCP instead of failing a wait.
     */
    @Test
    void withoutTheJdksChannelExportTheTechnologyIsNotOffered() throws Exception {
        Path launcher = Path.of(System.getProperty("java.home"), "bin", "java");
        Process p = new ProcessBuilder(launcher.toString(), "-cp", System.getProperty("java.class.path"),
                Unexported.class.getName(), tmp.resolve("remora-unexported").toString())
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), out);
        assertEquals("available=false notes=1 unix-unavailable", out.trim());
        assertTrue(unix(0).available(), "this JVM exports it (the test's argLine, as the agent does)");
    }

    /** Run in a JVM of its own, without --add-exports: prints what the technology says there. */
    public static final class Unexported {
        public static void main(String[] args) {
            List<String> keys = new CopyOnWriteArrayList<>();
            RouterListener l = new RouterListener() {
                @Override
                public void bytes(long out, long in) {
                }

                @Override
                public void note(String key, String message) {
                    keys.add(key);
                }
            };
            UnixTechnology t = new UnixTechnology(new SocketTechnology(1 << 22, 0), 1 << 22, 5000, l,
                    Path.of(args[0]));
            System.out.println("available=" + t.available() + " notes=" + keys.size() + " " + String.join(",", keys));
        }
    }

    /**
     * A spin's ready() reads at most 4 KB ahead; the read that follows takes those and, in the same call, whatever
     * else has come (the rest of a large frame), not 4 KB per ready() and read.
     */
    @Test
    void aReadAfterReadyTakesMoreThanWhatReadyReadAhead() throws Exception {
        Path path = tmp.resolve("ahead.sock");
        try (java.nio.channels.ServerSocketChannel server = java.nio.channels.ServerSocketChannel.open(
                StandardProtocolFamily.UNIX)) {
            server.bind(UnixDomainSocketAddress.of(path));
            try (SocketChannel writer = SocketChannel.open(UnixDomainSocketAddress.of(path));
                    SocketChannel accepted = server.accept()) {
                UnixTechnology.UnixBytes in = new UnixTechnology.UnixBytes(accepted);
                byte[] sent = new byte[60_000];
                for (int i = 0; i < sent.length; i++) {
                    sent[i] = (byte) (i * 31);
                }
                ByteBuffer bb = ByteBuffer.wrap(sent);
                while (bb.hasRemaining()) {
                    writer.write(bb);
                }
                assertTrue(in.ready());
                byte[] got = new byte[sent.length];
                int n = in.read(got, 0, got.length);
                assertTrue(n > 4096, "one read after ready() took " + n + " bytes");
                while (n < got.length) {
                    n += in.read(got, n, got.length - n);
                }
                assertArrayEquals(sent, got);
                writer.close();
                assertTrue(in.ready(), "the end of the stream is ready to be read");
                assertEquals(-1, in.read(got, 0, 1));
                in.close();
            }
        }
    }
}
