package dev.remora.rmi.transport;

import dev.remora.rmi.RouterListener;
import dev.remora.rmi.wire.Frame;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.net.StandardProtocolFamily;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SelectionKey;
import java.nio.channels.ServerSocketChannel;
import java.nio.channels.SocketChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.Collections;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Remora's frames over a Unix domain socket between two JVMs of one host (no libfabric there, or before
 * {@code remora.transport=auto} moves a busy connection to fabric): the same {@link SocketLink} framing, without
 * TCP's loopback path, which cost 3-6 µs more a round trip here (docs/transports.md, "The floor of any socket on
 * one host").
 *
 * <p>Offered in the hello only to a peer judged to be on this host (the TCP connection's remote address is a loopback
 * address or this side's own). {@link #open} then runs a short handshake over the negotiated TCP connection: the
 * server binds a socket of a random name in a directory only its user may enter ({@code java.io.tmpdir/remora-USER},
 * mode 700) and names it with a random 16-byte token; the client connects, writes the token on the new socket and
 * says so; the server accepts, checks the token, unlinks the name and confirms. The TCP connection is then closed.
 * At any step either side may answer "tcp" instead (no such directory, a path too long, two containers sharing an
 * address but not a file system): both then run the socket technology over the same TCP connection, and that
 * costs one log line, never a call.
 */
public final class UnixTechnology implements Technology {
    private static final int MAGIC = 0x524d5558; // "RMUX"
    private static final byte OK = 0;
    private static final byte USE_TCP = 1;
    private static final int TOKEN = 16;
    private static final boolean PARK = Object.class.getModule().isExported("sun.nio.ch",
            UnixTechnology.class.getModule()) && ChannelPark.usable();

    private final SocketTechnology tcp;
    private final int maxFrame;
    private final int handshakeMillis;
    private final RouterListener listener;
    private final Path dir;
    private SecureRandom random; // made by the first server handshake: a client, or a JVM across hosts, needs none
    /** Links not closed yet, released at exit ({@link #exiting}). */
    private final Set<UnixBytes> live = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<UnixBytes, Boolean>()));

    /**
     * @param tcp the technology both sides fall back to on the same TCP connection; its receivers' spin is this one's
     * @param dir where a server binds its sockets (created mode 700 if missing; refused if others may enter it)
     */
    public UnixTechnology(SocketTechnology tcp, int maxFrame, int handshakeMillis, RouterListener listener, Path dir) {
        this.tcp = tcp;
        this.maxFrame = maxFrame;
        this.handshakeMillis = handshakeMillis;
        this.listener = listener;
        this.dir = dir;
        if (!PARK && listener != null) {
            listener.fallback("unix-unavailable", "no Unix domain sockets between JVMs of this host: this JDK's"
                    + " channels cannot be waited on as Remora does (java.base does not export sun.nio.ch to Remora,"
                    + " or its SelChImpl changed); connections use Remora's socket transport over TCP");
        }
    }

    /** {@code java.io.tmpdir/remora-USER}: the default directory of a server's sockets. */
    public static Path defaultDirectory() {
        return Path.of(System.getProperty("java.io.tmpdir", "/tmp"), "remora-" + fileNamePart(
                System.getProperty("user.name", "user")));
    }

    /**
     * {@code s} with every code point but ASCII letters, digits, '.', '_' and '-' made one '_', as
     * {@code replaceAll("[^A-Za-z0-9._-]", "_")} makes it, as the directory was named before. A loop: the regular
     * expression's compilation spun 3 classes in every JVM's first connection.
     */
    static String fileNamePart(String s) {
        StringBuilder b = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); ) {
            int x = s.codePointAt(i);
            i += Character.charCount(x);
            boolean keep = x >= 'a' && x <= 'z' || x >= 'A' && x <= 'Z' || x >= '0' && x <= '9' || x == '.'
                    || x == '_' || x == '-';
            b.append(keep ? (char) x : '_');
        }
        return b.toString();
    }

    @Override
    public String name() {
        return "unix";
    }

    @Override
    public int bit() {
        return Frame.TECH_UNIX;
    }

    /**
     * Whether java.base exports {@code sun.nio.ch} to Remora, as the agent does at activation unless
     * {@code remora.socket.unix=false}, and its channels can be waited on as {@link ChannelPark} does: without that
     * the technology is not offered and connections stay on TCP.
     */
    @Override
    public boolean available() {
        return PARK;
    }

    /**
     * Two containers sharing an address but not a file system pass {@link Technology#sameHost}; the handshake then
     * fails to connect and both sides stay on TCP.
     */
    @Override
    public boolean worthOffering(Socket connected) {
        return Technology.sameHost(connected);
    }

    @Override
    public Link open(Socket socket, boolean client) throws IOException {
        int saved = socket.getSoTimeout();
        socket.setSoTimeout(handshakeMillis);
        DataInputStream in = new DataInputStream(socket.getInputStream());
        SocketChannel ch = client ? clientHandshake(socket, in) : serverHandshake(socket, in);
        if (ch == null) {
            socket.setSoTimeout(saved);
            return tcp.open(socket, client);
        }
        String peer = socket.getInetAddress().getHostAddress() + ":" + socket.getPort() + "/unix";
        SocketLink link;
        try {
            UnixBytes bytes = new UnixBytes(ch);
            live.add(bytes);
            link = new SocketLink(bytes, peer, maxFrame, tcp.spinNanos(), tcp.spinMaxNanos(),
                    Link.READ_FOREVER_MILLIS);
        } catch (IOException | RuntimeException e) {
            ch.close();
            socket.close();
            throw e instanceof IOException ? (IOException) e : new IOException(e);
        }
        socket.close(); // the link lives on the Unix domain socket now
        return link;
    }

    private SocketChannel serverHandshake(Socket socket, DataInputStream in) throws IOException {
        Path path;
        ServerSocketChannel server;
        byte[] token = new byte[TOKEN];
        try {
            ensureDirectory();
            SecureRandom r = random();
            r.nextBytes(token);
            path = dir.resolve("r" + Long.toHexString(r.nextLong() & Long.MAX_VALUE) + ".sock");
            server = ServerSocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                server.bind(UnixDomainSocketAddress.of(path), 1);
            } catch (IOException | RuntimeException e) {
                server.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            send(socket, USE_TCP, "could not bind a Unix domain socket in " + dir + ": " + e.getMessage());
            fellBack(socket, "this JVM could not bind a Unix domain socket in " + dir + " (" + e.getMessage() + ")");
            return null;
        }
        SocketChannel ch = null;
        try {
            ByteArrayOutputStream b = new ByteArrayOutputStream();
            DataOutputStream out = new DataOutputStream(b);
            out.writeInt(MAGIC);
            out.writeByte(OK);
            out.writeUTF(path.toString());
            out.write(token);
            socket.getOutputStream().write(b.toByteArray());
            if (in.readInt() != MAGIC) {
                throw new IOException("the peer broke the Unix domain socket handshake (wrong magic)");
            }
            if (in.readByte() != OK) {
                fellBack(socket, "the client " + in.readUTF());
                return null;
            }
            // the client connected and wrote its token before it said so: both are here, or never will be
            server.configureBlocking(false);
            ch = server.accept();
            String wrong = ch == null ? "no connection came to " + path : checkToken(ch, token);
            if (wrong != null) {
                send(socket, USE_TCP, "refused the Unix domain socket: " + wrong);
                fellBack(socket, wrong);
                if (ch != null) {
                    ch.close();
                }
                return null;
            }
            send(socket, OK, null);
            return ch;
        } catch (IOException | RuntimeException e) {
            if (ch != null) {
                ch.close();
            }
            throw e instanceof IOException ? (IOException) e : new IOException(e);
        } finally {
            server.close();
            try {
                Files.deleteIfExists(path);
            } catch (IOException ignored) {
                // the directory is this user's own; a stale name there is harmless
            }
        }
    }

    private synchronized SecureRandom random() {
        if (random == null) {
            random = new SecureRandom();
        }
        return random;
    }

    private static String checkToken(SocketChannel ch, byte[] token) throws IOException {
        ch.configureBlocking(false);
        ByteBuffer got = ByteBuffer.allocate(TOKEN);
        ch.read(got);
        return got.position() == TOKEN && java.util.Arrays.equals(got.array(), token) ? null
                : "a connection to its socket did not carry the token";
    }

    private SocketChannel clientHandshake(Socket socket, DataInputStream in) throws IOException {
        if (in.readInt() != MAGIC) {
            throw new IOException("the peer broke the Unix domain socket handshake (wrong magic)");
        }
        if (in.readByte() != OK) {
            fellBack(socket, "the server " + in.readUTF());
            return null;
        }
        String path = in.readUTF();
        byte[] token = new byte[TOKEN];
        in.readFully(token);
        SocketChannel ch;
        try {
            ch = SocketChannel.open(StandardProtocolFamily.UNIX);
            try {
                ch.connect(UnixDomainSocketAddress.of(path)); // at once or never: the server is listening
                ByteBuffer t = ByteBuffer.wrap(token);
                while (t.hasRemaining()) {
                    ch.write(t);
                }
            } catch (IOException | RuntimeException e) {
                ch.close();
                throw e;
            }
        } catch (IOException | RuntimeException e) {
            send(socket, USE_TCP, "could not connect to " + path + ": " + e);
            fellBack(socket, "this JVM could not connect to the server's Unix domain socket " + path + " (" + e
                    + "; another file system, a container?)");
            return null;
        }
        try {
            send(socket, OK, null);
            if (in.readInt() != MAGIC) {
                throw new IOException("the peer broke the Unix domain socket handshake (wrong magic)");
            }
            if (in.readByte() != OK) {
                String why = in.readUTF();
                ch.close();
                fellBack(socket, "the server " + why);
                return null;
            }
            return ch;
        } catch (IOException | RuntimeException e) {
            ch.close();
            throw e;
        }
    }

    /** One message of the handshake, in one write: {@code why} with {@link #USE_TCP}. */
    private static void send(Socket socket, byte verdict, String why) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        DataOutputStream out = new DataOutputStream(b);
        out.writeInt(MAGIC);
        out.writeByte(verdict);
        if (verdict != OK) {
            out.writeUTF(why.length() > 1000 ? why.substring(0, 1000) : why);
        }
        socket.getOutputStream().write(b.toByteArray());
    }

    private void fellBack(Socket socket, String why) {
        String peer = socket.getInetAddress().getHostAddress();
        listener.fallback("unix-handshake:" + peer, "no Unix domain socket with " + peer + ": " + why
                + "; this connection uses Remora's socket transport over TCP (remora.socket.unix=false skips the try)");
    }

    /** Creates the directory (mode 700) or checks that no one else may enter it. */
    private void ensureDirectory() throws IOException {
        if (!Files.exists(dir, LinkOption.NOFOLLOW_LINKS)) {
            try {
                Files.createDirectories(dir.getParent());
                Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(
                        "rwx------")));
            } catch (java.nio.file.FileAlreadyExistsException e) {
                // made by another JVM meanwhile: checked below
            }
        }
        PosixFileAttributes a = Files.readAttributes(dir, PosixFileAttributes.class, LinkOption.NOFOLLOW_LINKS);
        Set<PosixFilePermission> p = a.permissions();
        if (!a.isDirectory() || p.contains(PosixFilePermission.GROUP_WRITE)
                || p.contains(PosixFilePermission.GROUP_EXECUTE)
                || p.contains(PosixFilePermission.OTHERS_WRITE) || p.contains(PosixFilePermission.OTHERS_EXECUTE)) {
            throw new IOException(dir + " is not a directory only its owner may enter (" + (a.isDirectory()
                    ? PosixFilePermissions.toString(p) : "not a directory") + ", owner " + a.owner().getName()
                    + "); remove it, or set java.io.tmpdir");
        }
    }

    /** At JVM exit: ends the reads of every live link (end of stream), so that no thread waits in native code. */
    @Override
    public int exiting() {
        UnixBytes[] all;
        synchronized (live) {
            all = live.toArray(new UnixBytes[0]);
        }
        int n = 0;
        for (UnixBytes b : all) {
            if (b.shutdownInput()) {
                n++;
            }
        }
        return n;
    }

    /**
     * A Unix domain channel as a link's byte stream. The channel has no {@code Socket} adaptor and so no read timeout
     * or {@code available()}: it runs non-blocking, a read that finds nothing waits in one {@code poll(2)} on the
     * channel ({@link ChannelPark}) for as long as the link's timeout allows, and a write that finds the socket full
     * waits there for room. A spin's {@link #ready} is a read that may find nothing; what it found is kept for the
     * read that follows. Reads and writes are cut into pieces of at most 128 KB, as the JDK's socket streams do: the
     * JDK copies a heap buffer through a temporary direct buffer of its size, which each thread then keeps.
     */
    static final class UnixBytes extends SocketLink.Bytes {
        private static final int CHUNK = 128 * 1024;
        /** What a {@link #ready} reads at most: a small frame whole, the head of a larger one. */
        private static final int AHEAD = 4096;
        /**
         * The longest single wait: a wait that began just as another thread closed the channel would otherwise poll a
         * descriptor that no longer exists, for as long as its timeout. {@link #close} shuts the socket down first,
         * which ends the waits already in {@code poll}.
         */
        private static final long PARK_NANOS = 1_000_000_000L;
        private final SocketChannel ch;
        private volatile boolean closed;
        private int timeoutMillis = Link.READ_FOREVER_MILLIS;
        private ByteBuffer ahead; // made by the first ready(): what it read, flipped for reading
        private boolean ended; // a ready() read the end of the stream

        UnixBytes(SocketChannel ch) throws IOException {
            if (!ChannelPark.supports(ch)) {
                throw new IOException("not the JDK's own socket channel: " + ch.getClass().getName());
            }
            this.ch = ch;
            ch.configureBlocking(false);
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            if (len == 0) {
                return 0;
            }
            ByteBuffer a = ahead;
            if (a != null && a.hasRemaining()) {
                int n = Math.min(len, a.remaining());
                a.get(b, off, n);
                if (n < len && !a.hasRemaining() && !ended) {
                    // the rest of a large frame may be here too: take it in this read, not 4 KB per ready() and read
                    int k = ch.read(ByteBuffer.wrap(b, off + n, Math.min(len - n, CHUNK)));
                    if (k > 0) {
                        n += k;
                    } else if (k < 0) {
                        ended = true; // the next read says so
                    }
                }
                return n;
            }
            if (ended) {
                return -1;
            }
            ByteBuffer bb = ByteBuffer.wrap(b, off, Math.min(len, CHUNK));
            int k = ch.read(bb);
            if (k != 0) {
                return k;
            }
            long deadline = timeoutMillis == Link.READ_FOREVER_MILLIS ? 0 : System.nanoTime()
                    + timeoutMillis * 1_000_000L;
            boolean interrupted = false;
            try {
                while (true) {
                    long wait = PARK_NANOS;
                    if (deadline != 0) {
                        long left = deadline - System.nanoTime();
                        if (left <= 0) {
                            throw new SocketTimeoutException("Read timed out");
                        }
                        wait = Math.min(wait, left);
                    }
                    interrupted |= await(SelectionKey.OP_READ, wait);
                    k = ch.read(bb);
                    if (k != 0) {
                        return k;
                    }
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        /**
         * Waits in {@code poll} for {@code op}. A socket's read or write ignores interrupts, and so does this wait: a
         * virtual thread's park returns at once while it is interrupted, so the interrupt is taken first (and
         * returned, for the caller to set again once done) rather than have the thread spin until its bytes come.
         */
        private boolean await(int op, long nanos) throws IOException {
            boolean interrupted = Thread.interrupted();
            if (closed) {
                throw new SocketException("Socket closed");
            }
            ChannelPark.park(ch, op, nanos);
            return interrupted;
        }

        @Override
        boolean ready() throws IOException {
            ByteBuffer a = ahead;
            if (a != null && a.hasRemaining() || ended) {
                return true;
            }
            if (a == null) {
                ahead = a = ByteBuffer.allocate(AHEAD);
            }
            a.clear();
            int k = ch.read(a);
            a.flip();
            if (k < 0) {
                ended = true;
            }
            return k != 0;
        }

        @Override
        void write(byte[] b, int off, int len) throws IOException {
            boolean interrupted = false;
            try {
                while (len > 0) {
                    int n = Math.min(len, CHUNK);
                    ByteBuffer bb = ByteBuffer.wrap(b, off, n);
                    while (bb.hasRemaining()) {
                        if (ch.write(bb) == 0) { // as a socket's write: waits until the peer reads
                            interrupted |= await(SelectionKey.OP_WRITE, PARK_NANOS);
                        }
                    }
                    off += n;
                    len -= n;
                }
            } finally {
                if (interrupted) {
                    Thread.currentThread().interrupt();
                }
            }
        }

        @Override
        void timeout(int millis) {
            timeoutMillis = millis;
        }

        /**
         * Shuts the socket down before it closes it: that ends a wait in {@code poll} on it (closing a descriptor
         * does not), and the peer sees the end.
         */
        @Override
        void close() throws IOException {
            closed = true;
            try {
                if (ch.isOpen()) {
                    ch.shutdownInput();
                    ch.shutdownOutput();
                }
            } catch (IOException | RuntimeException e) {
                // not connected any more, or closed meanwhile: closing it is all that is left
            } finally {
                ch.close();
            }
        }

        @Override
        boolean isClosed() {
            return !ch.isOpen();
        }

        /** Whether it was open: a waiting read then sees end of stream. */
        boolean shutdownInput() {
            if (closed) {
                return false;
            }
            try {
                ch.shutdownInput();
                return true;
            } catch (IOException | RuntimeException e) {
                return false; // closed meanwhile
            }
        }
    }
}
