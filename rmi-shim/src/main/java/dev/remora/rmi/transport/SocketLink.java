package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.RemoraObjectOutput;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.ByteBuffer;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * {@link Link} over a byte stream: a TCP socket, or a Unix domain socket between two JVMs of one host
 * ({@link UnixTechnology}). Reads through its own buffer so that a small frame costs one {@code read} system
 * call; each frame is sent with one {@code write}. No allocation per frame.
 *
 * <p>Waiting for a frame spins, then blocks: for up to {@code spinNanos} the receiver asks the kernel how many bytes
 * wait ({@code available()}, one ioctl; on a Unix domain socket a read that may find nothing), yielding the CPU
 * between asks so that a peer sharing this CPU runs (a virtual thread, which cannot yield its carrier's CPU that way,
 * only hints a spin wait), and only then blocks in {@code read}. A blocked reader that the peer's write wakes on
 * another vCPU costs 30-60 µs on a VM whose idle vCPUs halt; a spinning one sees the bytes within a microsecond or
 * two. {@code remora.socket.spin=0} blocks at once, as JRMP does.
 */
final class SocketLink implements Link {
    private final Bytes bytes;
    private final Object sendLock = new Object();
    private final int maxFrame;
    private final long spinNanos;
    private final SpinBudget budget; // the reading thread's
    private final String peer;
    private final byte[] rbuf = new byte[RBUF];
    private final ByteBuffer rview = ByteBuffer.wrap(rbuf);
    private int rpos;
    private int rlim;
    private final int forever;
    private int soTimeout;
    private volatile boolean open = true;

    /** The receive buffer's size: a {@link FrameMap} fits in it. */
    private static final int RBUF = 64 * 1024;
    /**
     * Arrays of numbers travel apart from this size on (byte arrays from {@link FrameMap#MIN_APART}): read through the
     * 64 KB read buffer, an int[] of 4 MB took 10-15 % longer warm than read into the frame and copied out
     * (fewer, longer reads); past this size the frame's fresh memory costs more than that.
     */
    static final int APART_NUMBERS = 16 << 20;
    /** Arrays a frame's map names at most (the rest stay in the frame). */
    private static final int MAP_ARRAYS = (RBUF - FrameMap.HEAD) / FrameMap.ENTRY;
    /** A frame's tail at least this long is written by a second write instead of being copied behind the head. */
    static final int TAIL_WRITE_MIN = 64 * 1024;
    /** Chunk in which a tail's arrays other than byte[] are put in wire order (a multiple of 8 bytes). */
    private static final int SCRATCH = 64 * 1024;
    private byte[] scratch; // guarded by sendLock
    private final SpinBackoff backoff = new SpinBackoff(); // the reading thread's
    /**
     * Made once (a method reference is a new object each time it is evaluated), as classes: lambdas and method
     * references spin a class each at their first use, in every JVM's first calls.
     */
    private final java.util.function.BooleanSupplier bytesWaiting = new java.util.function.BooleanSupplier() {
        @Override
        public boolean getAsBoolean() {
            return bytesWaiting();
        }
    };
    private static final java.util.function.LongSupplier NANO_TIME = new java.util.function.LongSupplier() {
        @Override
        public long getAsLong() {
            return System.nanoTime();
        }
    };
    private static final Runnable YIELD = new Runnable() {
        @Override
        public void run() {
            Thread.yield();
        }
    };
    /**
     * A virtual thread's pause: {@code Thread.yield()} there unmounts it and hands it back to its scheduler, which
     * gives no other OS thread the CPU and cost a raw socket round trip 31 µs against 17 (JDK 25, a virtual thread
     * polling {@code available()}); a spin-wait hint costs it nothing. The spin's budget still bounds what it takes.
     */
    private static final Runnable SPIN_WAIT = new Runnable() {
        @Override
        public void run() {
            Thread.onSpinWait();
        }
    };
    /** {@code java.lang.VirtualThread} (JDK 21+), or null. */
    private static final Class<?> VIRTUAL_THREAD = virtualThreadClass();

    private static Class<?> virtualThreadClass() {
        try {
            return Class.forName("java.lang.VirtualThread", false, null);
        } catch (ClassNotFoundException | LinkageError e) {
            return null;
        }
    }

    /** The spin's pause for the current thread: a yield, or on a virtual thread a spin-wait hint. */
    static Runnable pause() {
        Class<?> v = VIRTUAL_THREAD;
        return v != null && Thread.currentThread().getClass() == v ? SPIN_WAIT : YIELD;
    }

    /** {@code forever}: the read timeout that stands for none (tests shorten it). */
    SocketLink(Socket socket, int maxFrame, long spinNanos, int forever) throws IOException {
        this(socket, maxFrame, spinNanos, spinNanos, forever);
    }

    SocketLink(Socket socket, int maxFrame, long spinNanos, long spinMaxNanos, int forever) throws IOException {
        this(new TcpBytes(socket), socket.getInetAddress().getHostAddress() + ":" + socket.getPort(), maxFrame,
                spinNanos, spinMaxNanos, forever);
        socket.setTcpNoDelay(true);
    }

    /**
     * {@code peer}: how messages name the other end; {@code spinNanos} and {@code spinMaxNanos}: a wait's spin, and
     * how far it adapts ({@link SpinBudget}).
     */
    SocketLink(Bytes bytes, String peer, int maxFrame, long spinNanos, long spinMaxNanos, int forever)
            throws IOException {
        this.bytes = bytes;
        this.forever = forever;
        this.soTimeout = forever;
        this.maxFrame = maxFrame;
        this.spinNanos = spinNanos;
        this.budget = new SpinBudget(spinNanos, spinMaxNanos);
        bytes.timeout(forever);
        this.peer = peer;
    }

    /** The next wait's spin budget (tests). */
    long spinBudgetNanos() {
        return budget.next();
    }

    /**
     * The byte stream under a link: reads and writes of a connected socket, reads timed by {@link #timeout}. Reads
     * come from one thread at a time, writes from one thread at a time (the link's send lock), the two at once.
     */
    abstract static class Bytes {
        /** As {@link InputStream#read(byte[], int, int)}; a {@link SocketTimeoutException} once the timeout passed. */
        abstract int read(byte[] b, int off, int len) throws IOException;

        /** Whether bytes wait to be read (or the stream ended or failed: the read that follows says which). */
        abstract boolean ready() throws IOException;

        /** Writes all of it. */
        abstract void write(byte[] b, int off, int len) throws IOException;

        /** The timeout of the reads that follow, in ms ({@link Link#READ_FOREVER_MILLIS}: none to speak of). */
        abstract void timeout(int millis) throws IOException;

        abstract void close() throws IOException;

        abstract boolean isClosed();
    }

    /** A TCP socket's streams (the JDK's {@code NioSocketImpl}: reads timed by {@code SO_TIMEOUT}). */
    private static final class TcpBytes extends Bytes {
        private final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        TcpBytes(Socket socket) throws IOException {
            this.socket = socket;
            this.in = socket.getInputStream();
            this.out = socket.getOutputStream();
        }

        @Override
        int read(byte[] b, int off, int len) throws IOException {
            return in.read(b, off, len);
        }

        @Override
        boolean ready() throws IOException {
            return in.available() > 0;
        }

        @Override
        void write(byte[] b, int off, int len) throws IOException {
            out.write(b, off, len);
        }

        @Override
        void timeout(int millis) throws IOException {
            socket.setSoTimeout(millis);
        }

        @Override
        void close() throws IOException {
            socket.close();
        }

        @Override
        boolean isClosed() {
            return socket.isClosed();
        }
    }

    /** Whether the link runs over a Unix domain socket ({@link UnixTechnology}) rather than TCP. */
    boolean overUnixSocket() {
        return bytes instanceof UnixTechnology.UnixBytes;
    }

    @Override
    public boolean carriesFrameRuns() {
        return true;
    }

    @Override
    public void send(FrameBuffer frame) throws IOException {
        try {
            if (frame.tailLength() > 0 && frame.tailLength() < TAIL_WRITE_MIN) {
                frame.absorbTail(); // one write, and the copy outside the lock: a second syscall costs more
            }
            synchronized (sendLock) {
                if (SendFaults.due(frame)) {
                    bytes.write(frame.array(), 0, Frame.HEADER); // the head alone: the peer waits for the rest
                    throw SendFaults.fault();
                }
                FrameBuffer map = frame.tailLength() >= FrameMap.MIN_APART ? FrameMap.of(frame, MAP_ARRAYS, false, APART_NUMBERS)
                        : null;
                if (map != null) { // its large arrays: the peer reads them straight into arrays of their own
                    bytes.write(map.array(), 0, map.length());
                }
                bytes.write(frame.array(), 0, frame.length());
                if (frame.tailLength() > 0) {
                    writeTail(frame.tail());
                }
            }
        } catch (IOException e) {
            close();
            throw e;
        } catch (RuntimeException | Error e) {
            close();
            throw new NotSent(this, e);
        }
    }

    /** Byte arrays go to the socket as they are; other primitive arrays through a scratch buffer, a chunk at a time. */
    private void writeTail(FrameBuffer.Tail t) throws IOException {
        for (int i = 0; i < t.pieces(); i++) {
            Object a = t.piece(i);
            int off = t.pieceOffset(i);
            int len = t.pieceLength(i);
            if (a instanceof byte[]) {
                bytes.write((byte[]) a, off, len);
                continue;
            }
            byte[] s = scratch;
            if (s == null) {
                scratch = s = new byte[SCRATCH];
            }
            for (int done = 0; done < len; ) {
                int n = Math.min(len - done, s.length);
                RemoraObjectOutput.copyPiece(a, off + done, s, 0, n);
                bytes.write(s, 0, n);
                done += n;
            }
        }
    }

    @Override
    public FrameBuffer receive(Sink sink, int timeoutMillis) throws IOException {
        setTimeout(timeoutMillis);
        fill(Frame.HEADER);
        int length = FrameBuffer.getInt(rbuf, rpos);
        if (length == 0) {
            return receiveMapped(sink, timeoutMillis);
        }
        byte kind = rbuf[rpos + Frame.OFF_KIND];
        if (length < Frame.HEADER || length > maxFrame || kind < Frame.CALL || kind > Frame.LAST_KIND) {
            close();
            throw new MalformedFrameException("malformed Remora frame from " + peer + ": length " + length
                    + ", kind " + kind + " (largest frame accepted: " + maxFrame + " bytes); connection closed");
        }
        int callId = FrameBuffer.getInt(rbuf, rpos + Frame.OFF_CALL_ID);
        FrameBuffer dst = sink.bufferFor(kind, callId, length);
        byte[] d = dst.prepareReceive(length);
        int have = Math.min(length, rlim - rpos);
        System.arraycopy(rbuf, rpos, d, 0, have);
        rpos += have;
        // The rest of a large frame goes straight into the destination.
        try {
            readFully(d, have, length - have);
        } catch (SocketTimeoutException e) {
            throw cutShort(length, timeoutMillis);
        }
        return dst;
    }

    /**
     * A timed wait that ended inside a frame: its first bytes are consumed, so the stream is out of step for the next
     * reader (who would take the rest for a header). The link is closed; the exception is still a timeout, the
     * caller's to report. A frame whose bytes keep coming is not cut: each read waits up to the timeout anew.
     */
    private SocketTimeoutException cutShort(long length, int timeoutMillis) {
        close();
        return new SocketTimeoutException("the rest of a frame of " + length + " bytes from " + peer
                + " did not come within " + timeoutMillis + " ms; connection closed");
    }

    /**
     * A frame after its {@link FrameMap} (at rpos): its large arrays are read into arrays of their own (byte arrays
     * straight from the socket, others through the read buffer), the rest into the sink's buffer.
     */
    private FrameBuffer receiveMapped(Sink sink, int timeoutMillis) throws IOException {
        long n = FrameMap.length(rview, rpos);
        if (n < FrameMap.HEAD || n > rbuf.length) {
            throw malformed("a map of " + n + " bytes (at most " + rbuf.length + ")");
        }
        fill((int) n);
        FrameMap map;
        try {
            map = FrameMap.read(rview, rpos, (int) n, maxFrame);
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
        rpos += (int) n;
        map.begin(sink);
        try {
            while (map.remaining() > 0) {
                int run = map.run();
                byte[] direct = map.direct();
                if (direct != null) {
                    int have = Math.min(run, rlim - rpos);
                    if (have > 0) {
                        System.arraycopy(rbuf, rpos, direct, map.directOffset(), have);
                        rpos += have;
                    } else {
                        readFully(direct, map.directOffset(), have = run);
                    }
                    map.advance(have);
                } else {
                    int size = map.elementSize();
                    fill(size);
                    int take = Math.min(run, rlim - rpos);
                    take -= take % size;
                    map.put(rview, rpos, take);
                    rpos += take;
                }
            }
            return map.finish();
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        } catch (SocketTimeoutException e) {
            throw cutShort(map.total(), timeoutMillis);
        }
    }

    private MalformedFrameException malformed(String what) {
        close();
        return new MalformedFrameException("malformed Remora frame from " + peer + ": " + what
                + "; connection closed");
    }

    /** Makes at least n bytes available in rbuf from rpos. */
    private void fill(int n) throws IOException {
        if (rlim - rpos >= n) {
            return;
        }
        if (rpos > 0) {
            System.arraycopy(rbuf, rpos, rbuf, 0, rlim - rpos);
            rlim -= rpos;
            rpos = 0;
        }
        while (rlim < n) {
            boolean wait = rlim == 0 && spinNanos > 0;
            // a wait for a frame: its length, spun or blocked, sets how long the next one spins (SpinBudget)
            boolean timed = wait && budget.adapts();
            long start = timed ? System.nanoTime() : 0;
            if (wait) {
                spin(budget.next());
            }
            rlim += read(rbuf, rlim, rbuf.length - rlim);
            if (timed) {
                budget.waited(System.nanoTime() - start);
            }
        }
    }

    /**
     * Waits up to spinNanos for bytes to arrive without blocking; the read that follows then finds them. Skipped for
     * the next waits after a spin lost the CPU (see {@link #spinWait}, {@link SpinBackoff}).
     */
    private void spin(long budgetNanos) {
        if (backoff.skip()) {
            return;
        }
        if (CpuWatch.othersBusy()) {
            return; // the application wants every CPU: block (see CpuWatch)
        }
        int r;
        HostSpinners counted = CpuWatch.spinning();
        try {
            r = spinWait(bytesWaiting, budgetNanos, NANO_TIME, pause());
        } finally {
            CpuWatch.spun(counted);
        }
        if (r == SPIN_LOST_CPU) {
            backoff.lost();
        } else {
            backoff.spun();
        }
    }

    private boolean bytesWaiting() {
        try {
            return bytes.ready();
        } catch (IOException e) {
            return true; // the read that follows reports it
        }
    }

    static final int SPIN_READY = 0;
    static final int SPIN_BUDGET = 1;
    static final int SPIN_LOST_CPU = 2;

    /**
     * A yield this long lost the CPU to a thread that runs for whole slices; shorter ones (a JVM's housekeeping
     * threads, the peer's reply in same-CPU placement) only end the spin when the budget is spent.
     */
    static final long LOST_CPU_NANOS = 500_000;

    /**
     * Polls {@code ready} and pauses (yields) between polls until it is true ({@link #SPIN_READY}) or
     * {@code budgetNanos} have passed ({@link #SPIN_BUDGET}). The clock is read after every pause: when another
     * thread is runnable on this CPU (the JIT's compiler busy recompiling, a GC, the application), one yield can hand
     * it a whole scheduler slice, 3-4 ms here, and a spin that read the clock every few polls once waited 7 ms per
     * call (the compare's socket+jdk pingpong). A pause of {@link #LOST_CPU_NANOS} or more ends the spin at once
     * ({@link #SPIN_LOST_CPU}): blocking then lets the frame's arrival wake this thread, which preempts such a thread,
     * where a yielding one waits for its slice to end.
     */
    static int spinWait(java.util.function.BooleanSupplier ready, long budgetNanos,
            java.util.function.LongSupplier clock, Runnable pause) {
        long start = clock.getAsLong();
        while (true) {
            if (ready.getAsBoolean()) {
                return SPIN_READY;
            }
            long before = clock.getAsLong();
            if (before - start >= budgetNanos) {
                return SPIN_BUDGET;
            }
            pause.run();
            if (clock.getAsLong() - before >= LOST_CPU_NANOS) {
                return ready.getAsBoolean() ? SPIN_READY : SPIN_LOST_CPU;
            }
        }
    }

    private void readFully(byte[] d, int off, int len) throws IOException {
        while (len > 0) {
            if (spinNanos > 0 && !bytesWaiting()) {
                // the rest of a large frame is on its way: a blocking read would pay a wake-up per segment
                spin(budget.next());
            }
            int k = read(d, off, len);
            off += k;
            len -= k;
        }
    }

    private int read(byte[] b, int off, int len) throws IOException {
        int k;
        while (true) {
            try {
                k = bytes.read(b, off, len);
                break;
            } catch (SocketTimeoutException e) {
                if (soTimeout != forever) {
                    throw e;
                }
            } catch (IOException e) {
                close();
                throw e;
            }
        }
        if (k < 0) {
            close();
            throw new EOFException("connection to " + peer + " closed by the peer");
        }
        return k;
    }

    /** {@code millis} 0: none ({@code forever}, {@link Link#READ_FOREVER_MILLIS} outside tests). */
    private void setTimeout(int millis) throws IOException {
        if (millis == 0) {
            millis = forever;
        }
        if (millis != soTimeout) {
            bytes.timeout(millis);
            soTimeout = millis;
        }
    }

    @Override
    public boolean stillOpen() {
        if (!open) {
            return false;
        }
        if (rlim > rpos) {
            return true;
        }
        try {
            setTimeout(1);
            if (rpos > 0) {
                rpos = 0;
                rlim = 0;
            }
            int k = bytes.read(rbuf, rlim, rbuf.length - rlim);
            if (k < 0) {
                close();
                return false;
            }
            rlim += k;
            return true;
        } catch (SocketTimeoutException e) {
            return true;
        } catch (IOException e) {
            close();
            return false;
        }
    }

    @Override
    public boolean isOpen() {
        return open && !bytes.isClosed();
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public void close() {
        open = false;
        try {
            bytes.close();
        } catch (IOException ignored) {
            // closing anyway
        }
    }

    @Override
    public String toString() {
        return "socket link to " + peer;
    }
}
