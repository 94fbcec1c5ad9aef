package dev.remora.rmi.transport.fabric;

import dev.remora.fabric.FabricEndpoint;
import dev.remora.rmi.RouterListener;
import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.transport.CpuWatch;
import dev.remora.rmi.transport.HostSpinners;
import dev.remora.rmi.transport.FrameMap;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.MalformedFrameException;
import dev.remora.rmi.transport.SendFaults;
import dev.remora.rmi.transport.SpinBackoff;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.ByteBuffer;
import java.nio.channels.AsynchronousCloseException;
import java.nio.channels.ClosedChannelException;
import java.util.concurrent.TimeUnit;

/**
 * {@link Link} over one libfabric endpoint per connection: a frame is one fabric message, or several frames back to
 * back are ({@link #carriesFrameRuns}: held-back one-way and future calls, and replies to futures, remora.async.batch
 * and remora.future.batch); the receiver copies the rest of such a message aside and hands its frames out one by one.
 * A frame above {@link #CHUNK} bytes goes as its {@link FrameMap} and then messages of at most that size
 * ({@link #sendChunked}): its large arrays are received into arrays of their own.
 *
 * <p>Sending copies the frame's bytes once into the endpoint's native staging buffer (the array is never pinned);
 * a frame with a tail ({@link FrameBuffer#setTail}) goes as its head and the tail's pieces, gathered by one JNI call
 * that copies each once: a long primitive array of the call goes from the application's array to native memory.
 * Receiving waits with the endpoint's adaptive spin-then-block (polls, then polls with {@code sched_yield} for the
 * configured spin budget, then sleeps: over shm with shared rings blocked until the peer's next frame, else in naps),
 * and copies the message from its native slot into the buffer the {@link Link.Sink} picks: one copy, no allocation.
 * No spin while {@link CpuWatch} says the application wants every CPU, nor for the next waits after a yield lost
 * the CPU ({@link FabricEndpoint#lostCpu()}: a JIT compiler running for whole slices on this CPU).
 *
 * <p>Liveness: libfabric's RDM endpoints are connectionless, so a peer that dies is not noticed by the fabric (shm
 * never reports it). The TCP connection the link was negotiated over therefore stays open and silent; a daemon
 * watcher thread blocks in its {@code read}. When the peer closes it (or its process dies and the kernel closes
 * it), the watcher closes the link: the endpoint's close wakes a blocked receive or send, which then throws
 * {@link EOFException}, so pending calls fail at once as on the socket link. {@link #stillOpen()} just reads the
 * watcher's verdict. {@link #close()} closes the socket (the peer's watcher sees it) and frees the endpoint.
 *
 * <p>Idle receivers (providers without a wait fd: shm). Over a shared ring the receiver blocks on the ring's futex,
 * which the peer's next post wakes: once it has waited {@code sleepNanos} it stops counting as a spinning waiter and
 * blocks on. Without one it naps, which costs about 1.5 % of a CPU for as long as the link is idle. So once such a
 * receive has waited {@code sleepNanos} without a frame, the link asks
 * the peer, on the liveness connection, to ring before its next frame ({@link #SLEEP}); the peer's watcher notes it
 * and promises ({@link #PROMISE}) under the peer's bell lock, the lock its senders hold from checking for a sleeper
 * to posting their frame; on the promise this side's endpoint may sleep until the bell
 * ({@link FabricEndpoint#sleepDeeply()}). The peer's next send first rings ({@link #RING}): this side's watcher
 * wakes the receiver, which spins for the frame that follows. A frame posted before the promise is found by the one
 * more poll the endpoint makes before it sleeps; a lost bell would only delay a frame to the end of the endpoint's
 * deep sleep (100 ms). The liveness connection otherwise stays silent; any other byte on it closes the link.
 *
 * <p>A known edge: a frame the peer sent just before closing its socket may be lost if the watcher closes this
 * endpoint before the receiver took it (the peer is gone either way, and no caller waits on such a frame except a
 * one-way call, which JRMP does not promise either).
 */
public final class FabricLink implements Link {
    /** On the liveness connection: "I am idle: ring before your next frame". */
    static final int SLEEP = 'S';
    /** The answer to {@link #SLEEP}: "I will ring". */
    static final int PROMISE = 'P';
    /** "A frame follows": sent before the first frame after a {@link #SLEEP}. */
    static final int RING = 'R';
    /**
     * The longest message a frame is sent in ({@link #sendChunked}): what the endpoint sends as one segment, through
     * its send ring (or the peer-mapped ring over shm) and the peer's posted receive slots.
     */
    static final int CHUNK = FabricEndpoint.EAGER_SIZE;

    private final Socket socket;
    private final FabricEndpoint endpoint;
    private final long peerHandle;
    private final int maxFrame;
    private final String peer;
    private final RouterListener listener;
    private final long sleepNanos;
    private final boolean naps; // no wait fd (shm): a receive idle for sleepNanos stops counting as a spinner
    private final boolean bells; // ... and asks the peer to ring first (no shared ring to block on)
    private final Object bellLock = new Object(); // held from checking for a sleeping peer to posting the frame
    private boolean peerSleeps; // guarded by bellLock: the peer asked for a ring before the next frame
    private volatile boolean sleepAsked; // this side asked the peer to ring and was not rung since
    private int sleepRequests; // SLEEP bytes sent (the receiving thread's; tests)
    private boolean longWait; // expectLongWait, for the next receive (the receiving thread's)
    private final SpinBackoff backoff = new SpinBackoff(); // the receiving thread's
    private volatile boolean open = true;
    /** The frames of a message that carried several, after the first: handed out before the next message. */
    private byte[] run = new byte[0]; // the receiving thread's (receives are serialised by their callers)
    private int runPos;
    private int runLim;
    private volatile boolean peerClosed;
    /** The links not closed yet, for {@link #releaseAllForExit}. */
    private static final java.util.Set<FabricLink> LIVE = java.util.concurrent.ConcurrentHashMap.newKeySet();

    /**
     * @param socket the negotiated connection, past every handshake; kept open as the liveness signal
     * @param endpoint an endpoint that has inserted the peer as {@code peerHandle}; owned by the link from now on
     * @param sleepNanos how long a receive waits idle before it asks the peer to ring and sleeps until then; 0: never
     *     (on providers with a wait fd, tcp, it never does: the fd costs nothing)
     */
    public FabricLink(Socket socket, FabricEndpoint endpoint, long peerHandle, int maxFrame, long sleepNanos,
            RouterListener listener) {
        this.socket = socket;
        this.sleepNanos = sleepNanos;
        this.naps = sleepNanos > 0 && !endpoint.waitsOnFd();
        // a receiver that blocks on its shared ring's futex is woken by the peer's next post: it needs no bell, and
        // asking for one cost a byte each way on the liveness connection and a wake-up of both watchers, which a
        // busy machine schedules late
        this.bells = naps && !endpoint.sendsThroughSharedRing();
        this.endpoint = endpoint;
        this.peerHandle = peerHandle;
        this.maxFrame = maxFrame;
        this.listener = listener == null ? RouterListener.NONE : listener;
        this.peer = socket.getInetAddress().getHostAddress() + ":" + socket.getPort();
        LIVE.add(this);
    }

    /**
     * At JVM exit, after the application's shutdown hooks: gets every thread this JVM's links keep in native code out
     * of it (the JVM waits up to 300 ms at exit for such threads): the liveness watchers read end of stream and end
     * quietly, a receive in {@code FabricNative.receive} is woken and ends with {@link EOFException} (its server
     * connection ends as when a client leaves). Nothing is sent and nothing freed: the process is about to end, and
     * the peer sees the liveness connection close as it would then.
     *
     * @return how many links were released
     */
    public static int releaseAllForExit() {
        int n = 0;
        for (java.util.Iterator<FabricLink> it = LIVE.iterator(); it.hasNext(); ) {
            FabricLink l = it.next();
            it.remove();
            l.open = false;
            try {
                l.socket.shutdownInput();
            } catch (IOException e) {
                // closed meanwhile
            }
            l.endpoint.wakeForExit();
            n++;
        }
        return n;
    }

    /** Starts the liveness watcher; call once the link is handed to its user. */
    public void start() throws IOException {
        socket.setSoTimeout(READ_FOREVER_MILLIS); // timed, waited through (see Link#READ_FOREVER_MILLIS)
        // Bells are single bytes that must leave at once: with Nagle's algorithm a ring written while an earlier
        // byte waited for its ACK sat out the peer's delayed ACK (40 ms), and calls stalled that long.
        socket.setTcpNoDelay(true);
        InputStream in = socket.getInputStream();
        Thread t = SystemThreads.newThread(() -> watch(in), "remora-fabric-watch-" + peer, true);
        t.start();
    }

    private void watch(InputStream in) {
        try {
            for (int b = bell(in); b >= 0; b = bell(in)) {
                if (b == SLEEP) {
                    synchronized (bellLock) { // no frame is between its check for a sleeper and its post now
                        peerSleeps = true;
                        control(PROMISE);
                    }
                } else if (b == PROMISE) {
                    endpoint.sleepDeeply();
                } else if (b == RING) {
                    sleepAsked = false;
                    endpoint.bell();
                } else {
                    if (open) {
                        listener.note("fabric-liveness:" + peer, "the peer " + peer + " wrote byte " + b + " on the"
                                + " fabric link's liveness connection, which carries only bells; link closed");
                    }
                    break;
                }
            }
        } catch (IOException e) {
            // reset or closed: the peer is gone either way
        }
        if (open) {
            peerClosed = true;
            close();
        }
    }

    /** The next byte on the liveness connection, -1 at its end; the read's stand-in timeout is waited through. */
    private static int bell(InputStream in) throws IOException {
        while (true) {
            try {
                return in.read();
            } catch (java.net.SocketTimeoutException e) {
                // READ_FOREVER_MILLIS without a byte: wait on
            }
        }
    }

    /** The provider this link runs on, e.g. "shm". */
    public String provider() {
        return endpoint.provider();
    }

    /** How many times an idle receive asked the peer to ring (none over a shared ring). The receiving thread's. */
    int sleepRequests() {
        return sleepRequests;
    }

    /** Native memory the endpoint holds for messages ({@link FabricEndpoint#heldBytes()}): tests. */
    long heldBytes() {
        return endpoint.heldBytes();
    }

    /** Whether both directions go through shared rings (shm; see FabricEndpoint#createSharedRing). */
    public boolean sharedRings() {
        return endpoint.sendsThroughSharedRing() && endpoint.readsPeersSharedRing();
    }

    /** One byte on the liveness connection; writers of whole bytes need no lock of their own. */
    private void control(int b) throws IOException {
        socket.getOutputStream().write(b);
    }

    /** {@link #control} for a caller's send or receive: a failed write means the peer is gone, as on EOF. */
    private void signal(int b) throws IOException {
        try {
            control(b);
        } catch (IOException e) {
            throw closed(e);
        }
    }

    /** Rings first when the peer asked for it, whether or not this side ever sleeps (remora.fabric.sleep=0). */
    @Override
    public void send(FrameBuffer frame) throws IOException {
        synchronized (bellLock) {
            if (peerSleeps) {
                peerSleeps = false;
                signal(RING);
            }
            post(frame);
        }
    }

    private void post(FrameBuffer frame) throws IOException {
        try {
            if (SendFaults.due(frame)) {
                throw SendFaults.fault();
            }
            if (frame.frameLength() > CHUNK) {
                sendChunked(frame);
            } else if (frame.tailLength() > 0) {
                sendWithTail(frame);
            } else {
                endpoint.send(peerHandle, null, frame.array(), 0, frame.length());
            }
        } catch (ClosedChannelException e) { // includes AsynchronousCloseException
            throw closed(e);
        } catch (IOException e) {
            close();
            throw e;
        } catch (RuntimeException | Error e) {
            close();
            throw new NotSent(this, e);
        }
    }

    /**
     * Head and tail's pieces (the serializer's buffer, long primitive arrays as they are) as one message: each is
     * copied once, into the endpoint's native staging buffer.
     */
    private void sendWithTail(FrameBuffer frame) throws IOException {
        Pieces p = new Pieces(frame);
        endpoint.sendGather(peerHandle, p.arrays, p.offsets, p.lengths, p.count);
    }

    /**
     * A frame as the pieces a gathering send takes: its head, then its tail's. A few words per frame of 16 KB or
     * more; never kept past the send, so it holds on to no application array.
     */
    private static final class Pieces {
        final Object[] arrays;
        final int[] offsets;
        final int[] lengths;
        final int count;

        Pieces(FrameBuffer frame) {
            FrameBuffer.Tail t = frame.tail();
            count = (t == null ? 0 : t.pieces()) + 1;
            arrays = new Object[count];
            offsets = new int[count];
            lengths = new int[count];
            arrays[0] = frame.array();
            lengths[0] = frame.length();
            for (int i = 1; i < count; i++) {
                arrays[i] = t.piece(i - 1);
                offsets[i] = t.pieceOffset(i - 1);
                lengths[i] = t.pieceLength(i - 1);
            }
        }
    }

    /**
     * A frame longer than {@link #CHUNK}: a map, then the frame's bytes as messages of at most {@code CHUNK} bytes, cut
     * at the pieces' element boundaries, each piece copied once into the endpoint's send ring (over shm, the ring the
     * peer maps). Sent as one message, a 512 MB frame needed native buffers of its size on both sides (the sender's
     * staging, the receiver's), fresh memory the kernel clears page by page and the endpoint kept for good.
     *
     * <p>The {@link FrameMap} first names the message's primitive arrays of 256 KB or more: the receiver reads their
     * elements into arrays of their own and the rest into the frame, so a large value is received once. Only single
     * frames come here: runs of frames stay under 64 KB ({@code OnewayBatcher.BYTES} twice).
     */
    private void sendChunked(FrameBuffer frame) throws IOException {
        Pieces all = new Pieces(frame);
        Object[] arrays = all.arrays;
        int[] offsets = all.offsets;
        int[] lengths = all.lengths;
        int pieces = all.count;
        FrameBuffer map = FrameMap.of(frame, (CHUNK - FrameMap.HEAD) / FrameMap.ENTRY, true, 0);
        endpoint.send(peerHandle, null, map.array(), 0, map.length());
        Object[] a = new Object[pieces];
        int[] o = new int[pieces];
        int[] l = new int[pieces];
        int i = 0; // the piece the next message starts in
        int from = 0; // ... and where in it
        while (i < pieces) {
            int room = CHUNK;
            int k = 0;
            while (i < pieces) {
                int left = offsets[i] + lengths[i] - from;
                int take = Math.min(left, room - room % FabricEndpoint.elementSize(arrays[i]));
                if (take > 0) {
                    a[k] = arrays[i];
                    o[k] = from;
                    l[k] = take;
                    k++;
                    room -= take;
                    from += take;
                }
                if (take < left) {
                    break; // this message is full: the next starts here
                }
                if (++i < pieces) {
                    from = offsets[i];
                }
            }
            endpoint.sendGather(peerHandle, a, o, l, k);
        }
    }

    /** A message may hold several whole frames back to back; the receiver hands them out one by one. */
    @Override
    public boolean carriesFrameRuns() {
        return true;
    }

    @Override
    public FrameBuffer receive(Sink sink, int timeoutMillis) throws IOException {
        if (runPos < runLim) {
            return fromRun(sink);
        }
        int n;
        // no spin after a recent one lost the CPU (block; nap without shared rings), nor while the application wants
        // every CPU: spinning pays only while a CPU would otherwise idle
        boolean spin = !backoff.skip() && !CpuWatch.othersBusy();
        boolean longWait = this.longWait;
        this.longWait = false;
        boolean lost = false;
        endpoint.spin(spin);
        HostSpinners counted = null; // counted in CpuWatch as a spinning waiter of this JVM: where
        try {
            long timeout = timeoutMillis <= 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
            if (naps && !sleepAsked && (timeout < 0 || timeout > sleepNanos)) {
                long start = System.nanoTime();
                if (spin) {
                    // a waiter of this JVM, not an application thread wanting a CPU: uncounted, the waiters of a
                    // same-CPU pingpong (caller, callback reader, the peer's) looked like a busy machine to each
                    // other, stopped spinning and napped, 115-180 us per nested call instead of 20. Counted only
                    // while it spins or naps: not in the deep sleep below (an idle link's reader is no runnable
                    // thread), nor in a wait on the provider's fd (no bells)
                    counted = CpuWatch.spinning();
                }
                // a long wait on a shared CPU: no naps (one would outlast the wait by up to 1 ms), the bell at once
                n = endpoint.receive(longWait && !spin ? 0 : sleepNanos);
                lost = endpoint.lostCpu();
                if (n == FabricEndpoint.TIMEOUT) { // idle: (ask for a ring, then) wait on, deeply once promised
                    if (counted != null) {
                        CpuWatch.spun(counted);
                        counted = null;
                    }
                    if (bells) {
                        sleepAsked = true;
                        sleepRequests++;
                        signal(SLEEP);
                    } else if (spin) { // blocked on the shared ring's futex at once: spun out already
                        endpoint.spin(false);
                    }
                    n = endpoint.receive(timeout < 0 ? -1 : Math.max(0, timeout - (System.nanoTime() - start)));
                    lost |= endpoint.lostCpu();
                }
            } else {
                n = endpoint.receive(timeout);
                lost = endpoint.lostCpu();
            }
        } catch (ClosedChannelException e) {
            throw closed(e);
        } catch (IOException e) {
            close();
            throw e;
        } finally {
            if (counted != null) {
                CpuWatch.spun(counted);
            }
        }
        if (lost) {
            backoff.lost();
        } else if (spin) {
            backoff.spun();
        }
        if (n == FabricEndpoint.TIMEOUT) {
            throw new SocketTimeoutException("no frame from " + peer + " within " + timeoutMillis + " ms");
        }
        // read under the endpoint's hold: a close on another thread (the peer's connection ended) would otherwise
        // free or unmap the message's memory while it is read here
        if (!endpoint.holdReceived()) {
            throw closed(new AsynchronousCloseException());
        }
        int length;
        byte kind;
        boolean wellFormed;
        FrameBuffer dst = null;
        boolean chunked;
        boolean held = true;
        try {
            ByteBuffer m = endpoint.received();
            length = n >= Frame.HEADER ? m.getInt(0) : -1;
            kind = n >= Frame.HEADER ? m.get(Frame.OFF_KIND) : 0;
            chunked = length == 0 && n >= FrameMap.HEAD; // sendChunked's map: the frame follows
            wellFormed = chunked || length >= Frame.HEADER && length <= n && length <= maxFrame
                    && kind >= Frame.CALL && kind <= Frame.LAST_KIND;
            if (chunked) {
                held = false; // receiveChunked lets go of the map
                return receiveChunked(sink, m, n, timeoutMillis);
            }
            if (wellFormed) {
                if (length < n) { // a run of frames: the rest waits here (the next receive reuses the slot)
                    int rest = n - length;
                    if (run.length < rest) {
                        run = new byte[Math.max(rest, 2 * run.length)];
                    }
                    m.get(length, run, 0, rest);
                    runPos = 0;
                    runLim = rest;
                }
                dst = sink.bufferFor(kind, m.getInt(Frame.OFF_CALL_ID), length);
                byte[] d = dst.prepareReceive(length);
                m.get(0, d, 0, length);
            }
        } finally {
            if (held) {
                endpoint.releaseReceived();
            }
        }
        if (!wellFormed) {
            close();
            throw new MalformedFrameException("malformed Remora frame from " + peer + " over fabric: a message of "
                    + n + " bytes, header length " + length + ", kind " + kind + " (largest frame accepted: "
                    + maxFrame + " bytes); connection closed");
        }
        return dst;
    }

    /**
     * A frame sent by {@link #sendChunked}, from its map {@code m} ({@code n} bytes, held): its large arrays into
     * arrays of their own, the rest into the sink's buffer. Each wait for the next message is as long as the call's;
     * one that outlasts it, or a map or message that does not add up, leaves the link out of step: it is closed.
     */
    private FrameBuffer receiveChunked(Sink sink, ByteBuffer m, int n, int timeoutMillis) throws IOException {
        FrameMap map;
        try {
            map = FrameMap.read(m, 0, n, maxFrame);
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        } finally {
            endpoint.releaseReceived();
        }
        map.begin(sink);
        long timeout = timeoutMillis <= 0 ? -1 : TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (map.remaining() > 0) {
            int got;
            try {
                got = endpoint.receive(timeout);
            } catch (ClosedChannelException e) {
                throw closed(e);
            } catch (IOException e) {
                close();
                throw e;
            }
            if (got == FabricEndpoint.TIMEOUT) {
                close();
                throw new SocketTimeoutException("the rest of a frame of " + map.total() + " bytes from " + peer
                        + " did not come within " + timeoutMillis + " ms (" + (map.total() - map.remaining())
                        + " bytes came); connection closed");
            }
            if (!endpoint.holdReceived()) {
                throw closed(new AsynchronousCloseException());
            }
            try {
                map.put(endpoint.received(), 0, got);
            } catch (IllegalArgumentException e) {
                throw malformed(e.getMessage());
            } finally {
                endpoint.releaseReceived();
            }
        }
        try {
            return map.finish();
        } catch (IllegalArgumentException e) {
            throw malformed(e.getMessage());
        }
    }

    private MalformedFrameException malformed(String what) {
        close();
        return new MalformedFrameException("malformed Remora frame from " + peer + " over fabric: " + what
                + "; connection closed");
    }

    @Override
    public void expectLongWait() {
        longWait = true;
    }

    /** The next frame of the run kept from the last message. */
    private FrameBuffer fromRun(Sink sink) throws IOException {
        int left = runLim - runPos;
        int length = left >= Frame.HEADER ? FrameBuffer.getInt(run, runPos) : -1;
        byte kind = left >= Frame.HEADER ? run[runPos + Frame.OFF_KIND] : 0;
        if (length < Frame.HEADER || length > left || kind < Frame.CALL || kind > Frame.LAST_KIND) {
            runPos = runLim;
            close();
            throw new MalformedFrameException("malformed Remora frame from " + peer + " over fabric: " + left
                    + " bytes left of a run of frames, header length " + length + ", kind " + kind
                    + "; connection closed");
        }
        FrameBuffer dst = sink.bufferFor(kind, FrameBuffer.getInt(run, runPos + Frame.OFF_CALL_ID), length);
        byte[] d = dst.prepareReceive(length);
        System.arraycopy(run, runPos, d, 0, length);
        runPos += length;
        return dst;
    }

    private IOException closed(IOException cause) {
        close();
        IOException e = peerClosed ? new EOFException("connection to " + peer + " closed by the peer")
                : new EOFException("fabric link to " + peer + " closed");
        e.initCause(cause);
        return e;
    }

    @Override
    public boolean stillOpen() {
        return open;
    }

    @Override
    public boolean isOpen() {
        return open;
    }

    @Override
    public String peer() {
        return peer;
    }

    @Override
    public void close() {
        open = false;
        LIVE.remove(this);
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing anyway
        }
        endpoint.close(); // idempotent; wakes a blocked receive or send
    }

    @Override
    public String toString() {
        return "fabric link to " + peer + " over " + endpoint.provider();
    }
}
