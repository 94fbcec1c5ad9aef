package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.lang.ref.WeakReference;
import java.net.SocketTimeoutException;
import java.util.Arrays;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;

/**
 * The client side of one Remora connection, shared by every thread that calls the endpoint. Calls are matched to
 * replies by call id, so many can be in flight.
 *
 * <p>No reader thread: the waiting callers take turns reading ("leader/follower"). A caller that finds nobody
 * reading reads itself, hands replies of other calls to their threads, and stops when its own has come; then it
 * wakes one still-waiting caller to read next. A single-threaded client thus reads its reply on its own thread, as
 * JRMP does, with no thread switch. When the connection breaks, every pending call fails at once with the cause.
 *
 * <p>Fast-serializer replies ({@link Frame#FLAG_FAST}) are decoded by the reader as they arrive, because their type
 * ids must be learnt in order (see {@link FastChannel}); the caller then finds the outcome in its PendingCall.
 */
final class ClientConnection implements Link.Sink, OnewayBatcher.Holder {
    private static final int SLOTS = 1024;
    private static final int MASK = SLOTS - 1;
    private static final long FOLLOWER_PARK_NANOS = TimeUnit.MILLISECONDS.toNanos(20);
    /** A one-way caller at remora.async.maxPending while another thread reads: how long it naps between checks. */
    private static final long CREDIT_PARK_NANOS = TimeUnit.MICROSECONDS.toNanos(200);

    final Link link;
    /** The fast serializer's per-connection state (made for every connection: a server may answer fast anyway). */
    final FastChannel fast;
    final Marshalling marshalling;
    private final RouterOptions options;
    private final ReentrantLock readLock = new ReentrantLock();
    private final AtomicReferenceArray<PendingCall> slots = new AtomicReferenceArray<>(SLOTS);
    private final AtomicInteger nextId = new AtomicInteger(1);
    private final AtomicInteger inflight = new AtomicInteger();
    private final FrameBuffer discard = new FrameBuffer(256);
    private final long idleCheckNanos;
    private final int responseTimeoutMillis;
    /** Each calling thread's use of this connection's lanes (see {@link #takeLane}). */
    private final ThreadLocal<LaneUse> myLane = new ThreadLocal<>();
    private final Object laneLock = new Object();
    /** Lanes no call holds and no thread keeps, the one freed last at the end; guarded by laneLock. */
    private int[] freeLanes = new int[8];
    private int freeCount;
    /** The thread keeping each lane (lane n at n - 1), weakly, or null; guarded by laneLock. */
    @SuppressWarnings("unchecked")
    private WeakReference<Thread>[] keepers = new WeakReference[8];
    private int lanesMade;
    private PendingCall deliverTo; // guarded by readLock
    private volatile IOException dead;
    /** Set while {@link #closeIfNeverUsed} decides. */
    private volatile boolean closing;
    private volatile long lastUse = System.nanoTime();
    // asynchronous calls (remora.async, remora.future on the server; Remora.async on this side)
    /** Calls of Remora.async tasks whose reply has not been read ({@link ExplicitAsync}). */
    final ExplicitAsync.Queue apiCalls = new ExplicitAsync.Queue();
    /** The asynchronous methods of each object whose server said so on this connection (Frame.FLAG_DECLARES). */
    private final java.util.concurrent.ConcurrentHashMap<java.rmi.server.ObjID, AsyncMethods> learned =
            new java.util.concurrent.ConcurrentHashMap<>();
    private volatile boolean learnedAny;
    /** One-way calls sent, and confirmed run by the server (Frame.ONEWAY_ACK); at most maxPending apart. */
    private final java.util.concurrent.atomic.AtomicLong onewaySent = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong onewayConfirmed =
            new java.util.concurrent.atomic.AtomicLong();
    private final int maxPending;
    /** The confirmed count when a caller last asked the server to confirm (a PING at maxPending). */
    private volatile long askedAt = -1;
    /**
     * Set when callers found maxPending one-way calls unconfirmed; they go on only once at most half are (then it is
     * cleared). Without it, a server that confirms as it goes (each drained queue) and a caller waiting at the limit
     * moved in lockstep: a credit, a call, a flush and a ping each, one call per write.
     */
    private volatile boolean throttled;
    /** Set once the connection broke with one-way calls unconfirmed: for the next call to the endpoint to throw. */
    private volatile IOException unconfirmed;
    /** remora.async.batch on a link that carries runs of frames: one-way frames held back, sent together. */
    private final boolean batching;
    /** remora.future.batch on such a link: future call frames held back likewise. */
    private final boolean futureBatching;
    /** Future calls sent whose reply has not been read (nor given up): at most maxPending. */
    private final AtomicInteger futuresOut = new AtomicInteger();
    private final Object heldLock = new Object();
    private final FrameBuffer held; // guarded by heldLock
    private volatile int heldCalls; // written under heldLock
    /**
     * When the last one-way call of this connection was sent or held: one that follows it within
     * {@link RouterOptions#onewayRunGap} is held back (a run), one that comes later leaves at once. Holding a lone call
     * cost it the batcher thread's wake-up, 60-100 us here, which a caller that then waits for its peer pays in full
     * (the papers' SOR with one-way rows: a compute phase 1.2 s instead of 0.55).
     */
    private volatile long lastOneway;

    ClientConnection(Link link, RouterOptions options) {
        this.link = link;
        this.options = options;
        this.fast = new FastChannel(options.typeCache, options.spareBytes);
        this.marshalling = new Marshalling(fast, options);
        this.idleCheckNanos = TimeUnit.MILLISECONDS.toNanos(options.idleCheckMillis);
        this.responseTimeoutMillis = options.responseTimeout();
        this.maxPending = options.asyncMaxPending;
        this.batching = options.asyncBatch && link.carriesFrameRuns();
        this.futureBatching = options.futureBatch && link.carriesFrameRuns();
        this.held = batching || futureBatching ? new FrameBuffer(1024) : null;
        this.lastOneway = System.nanoTime() - options.onewayRunGapNanos; // the first one-way call is a lone one
    }

    /** The asynchronous methods the server declared for object {@code id}, or null (none, or not told yet). */
    AsyncMethods asyncOf(java.rmi.server.ObjID id) {
        return learnedAny ? learned.get(id) : null;
    }

    /** Reply frame {@code a} to a call to {@code id} carries the object's asynchronous methods: remembers them. */
    void learn(java.rmi.server.ObjID id, byte[] a) {
        if ((a[Frame.OFF_FLAGS] & Frame.FLAG_DECLARES) != 0) {
            learned.put(id, AsyncMethods.read(a));
            learnedAny = true;
        }
    }

    /**
     * What {@code spare}, a connection to the same server, learnt of {@code id}'s asynchronous methods: the calls
     * that choose one-way or future ask this connection ({@link RemoteEndpoint#spare}).
     */
    void learnFrom(ClientConnection spare, java.rmi.server.ObjID id) {
        AsyncMethods a = spare.learnedAny ? spare.learned.get(id) : null;
        if (a != null && learned.putIfAbsent(id, a) == null) {
            learnedAny = true;
        }
    }

    /**
     * Takes a place for one more one-way call, waiting while {@code maxPending} are unconfirmed (back-pressure), then
     * until at most half are ({@link #throttled}). A waiting caller reads the connection itself when nobody else
     * does, as callers waiting for replies do.
     *
     * @throws IOException the connection broke
     */
    void reserveOneway() throws IOException {
        while (true) {
            IOException d = dead;
            if (d != null) {
                throw d;
            }
            long sent = onewaySent.get();
            long pending = sent - onewayConfirmed.get();
            if (pending < maxPending && (!throttled || pending <= maxPending / 2)) {
                if (onewaySent.compareAndSet(sent, sent + 1)) {
                    if (throttled) {
                        throttled = false;
                    }
                    return;
                }
                continue;
            }
            throttled = true;
            long confirmed = onewayConfirmed.get();
            if (askedAt != confirmed) { // once per wait: the server then confirms once its queue is drained
                askedAt = confirmed;
                FrameBuffer ping = new FrameBuffer(Frame.HEADER);
                Frame.begin(ping, Frame.PING, (byte) 0, 0);
                Frame.finish(ping);
                send(ping); // after the one-way calls held back
            }
            waitForFrames(false);
        }
    }

    /**
     * One step of waiting for the server at remora.async.maxPending: reads one frame when nobody else reads (as
     * callers waiting for replies do), else naps. {@code futures}: waiting for future replies, else confirmations.
     */
    private void waitForFrames(boolean futures) {
        if (readLock.tryLock()) {
            try {
                long oneways = futures ? 0 : onewaySent.get() - onewayConfirmed.get();
                boolean full = futures ? futuresOut.get() >= maxPending
                        : oneways >= maxPending || (throttled && oneways > maxPending / 2);
                if (full && dead == null) {
                    if (!futures) {
                        link.expectLongWait(); // for the server to run half of maxPending one-way calls
                    }
                    readOne(null, 0);
                }
            } finally {
                readLock.unlock();
            }
            wakeNextReader(null);
        } else {
            LockSupport.parkNanos(this, CREDIT_PARK_NANOS);
        }
    }

    /**
     * Takes a place for one more future call, waiting while {@code maxPending} of this connection's future calls
     * have no reply yet (back-pressure: the server runs them all at once, each on a thread). The place is given
     * back when its reply has been read, or its call given up ({@link #unregister}), or by {@link #unreserveFuture}.
     *
     * @throws IOException the connection broke
     */
    void reserveFuture() throws IOException {
        while (true) {
            IOException d = dead;
            if (d != null) {
                throw d;
            }
            int n = futuresOut.get();
            if (n < maxPending) {
                if (futuresOut.compareAndSet(n, n + 1)) {
                    return;
                }
                continue;
            }
            flushHeld(); // future calls held back must leave for their replies to come
            waitForFrames(true);
        }
    }

    /** Gives back a place taken by {@link #reserveFuture} for a call that was never registered. */
    void unreserveFuture() {
        futuresOut.decrementAndGet();
    }

    /**
     * Sends a future call's frame (registered), or, with remora.future.batch, copies it behind the frames held back,
     * so that future calls issued back to back leave in one write. Whoever waits for its reply sends it first
     * ({@link #await}). A future issued while no other of this connection is out (a lone one, or the first of a run)
     * leaves at once: holding it would cost the batcher thread's wake-up and gain nothing.
     */
    void sendFuture(FrameBuffer frame) throws IOException {
        if (futureBatching && frame.tailLength() == 0 && frame.length() < OnewayBatcher.BYTES && dead == null
                && (futuresOut.get() > 1 || heldCalls != 0)) {
            hold(frame);
            return;
        }
        send(frame);
    }

    /** Copies {@code frame} behind the frames held back; the run leaves at 32 KB, or on the batcher's time. */
    private void hold(FrameBuffer frame) {
        boolean first;
        synchronized (heldLock) {
            first = heldCalls == 0;
            held.write(frame.array(), 0, frame.length());
            heldCalls++;
            if (held.length() >= OnewayBatcher.BYTES) {
                sendHeld(); // a failure is the connection's: counted, and the next call told
                return;
            }
        }
        if (first) {
            OnewayBatcher.due(this);
        }
    }

    /** Gives back a place taken by {@link #reserveOneway} for a call that was not sent. */
    void unreserveOneway() {
        onewaySent.decrementAndGet();
    }

    /**
     * Sends a one-way frame whose place was reserved, or, with remora.async.batch, when it follows another one-way call
     * closely ({@link #lastOneway}), copies it behind the one-way frames held back ({@link OnewayBatcher}). A failure
     * to send kills the connection; this caller is then told at once, its call not counted lost (a held-back call that
     * fails later is counted, and the next call told).
     */
    void sendOneway(FrameBuffer frame) throws IOException {
        IOException d = dead;
        if (d != null) {
            onewaySent.decrementAndGet();
            throw d;
        }
        long now = System.nanoTime();
        long previous = lastOneway;
        lastOneway = now;
        if (batching && frame.tailLength() == 0 && frame.length() < OnewayBatcher.BYTES
                && (heldCalls != 0 || now - previous < options.onewayRunGapNanos)) {
            hold(frame);
            return;
        }
        try {
            flushHeld();
            link.send(frame);
        } catch (IOException e) {
            onewaySent.decrementAndGet(); // this caller is told now
            fail(e);
            throw e;
        }
        options.listener.bytes(frame.frameLength(), 0);
        lastUse = System.nanoTime();
    }

    /** Sends the one-way and future frames held back, if any (before any other frame of this connection). */
    @Override
    public void flushHeld() {
        if (heldCalls == 0) {
            return;
        }
        synchronized (heldLock) {
            sendHeld();
        }
    }

    /** Called with heldLock held. */
    private void sendHeld() {
        int n = heldCalls;
        if (n == 0) {
            return;
        }
        try {
            if (dead == null) {
                link.send(held);
                options.listener.bytes(held.length(), 0);
                options.listener.onewayBatch(n);
                lastUse = System.nanoTime();
            }
        } catch (IOException e) {
            fail(e); // the calls held back count as unconfirmed: the next call says so
        } finally {
            held.clear();
            heldCalls = 0;
        }
    }

    /** One-way calls sent and not yet confirmed. */
    long onewayPending() {
        return onewaySent.get() - onewayConfirmed.get();
    }

    /**
     * Once only: why one-way calls sent on this broken connection were not confirmed, or null if all were. The next
     * call to the endpoint throws it.
     */
    IOException takeUnconfirmed() {
        if (unconfirmed == null) {
            return null;
        }
        synchronized (this) { // the endpoint replacing this connection and a caller failing on it may both ask
            IOException u = unconfirmed;
            unconfirmed = null;
            return u;
        }
    }

    /**
     * A lane for the calling thread's call: what a JRMP connection is to a call. JRMP serves each connection on one
     * server thread and hands a calling thread the connection freed last ({@code TCPChannel}'s free list), so a thread
     * that calls alone keeps its server thread, threads that take turns share one, and threads that call at once each
     * get their own. Remora multiplexes calls on one connection, so it numbers the connections they would have had
     * and hands them out the same way (the server serves a lane on one thread while its calls keep coming, see
     * {@link ServerConnection}). A thread that made a one-way call keeps its lane ({@link #keepLane}). 0 is no lane:
     * a second call of a thread whose call is in flight (made from inside its marshalling), or after 65534 lanes
     * ({@link Frame#LANE_ANY} is a future call's).
     */
    int takeLane() {
        return takeLane(true);
    }

    /**
     * As {@link #takeLane}, but -1 instead of a new lane when every lane is in a call: the caller may take another
     * connection instead, as JRMP opens one per concurrent call ({@link RemoteEndpoint#spare}).
     */
    int takeFreeLane() {
        return takeLane(false);
    }

    private int takeLane(boolean mayMake) {
        LaneUse u = laneUse();
        if (u.busy) {
            return 0;
        }
        if (u.lane == 0) {
            int lane = freeLane(u.kept ? Thread.currentThread() : null, mayMake || u.kept);
            if (lane < 0) {
                return -1;
            }
            u.lane = lane;
        }
        u.busy = u.lane != 0;
        return u.lane;
    }

    void releaseLane(int lane) {
        LaneUse u = myLane.get();
        if (lane == 0 || u == null || u.lane != lane) {
            return;
        }
        u.busy = false;
        if (!u.kept) {
            u.lane = 0;
            synchronized (laneLock) {
                if (freeCount == freeLanes.length) {
                    freeLanes = Arrays.copyOf(freeLanes, freeCount * 2);
                }
                freeLanes[freeCount++] = lane;
            }
        }
    }

    /**
     * The calling thread is about to make a one-way call: from now on it keeps its lane, so that the server runs its
     * later calls after its one-way ones, on the thread that ran those. A dead thread's lane is used again.
     */
    void keepLane() {
        laneUse().kept = true; // a thread not in a call holds no lane: its next takeLane takes one and keeps it
    }

    /**
     * The calling thread's call on its lane timed out: the lane stays out of use while the thread lives, as JRMP
     * discards a connection whose read timed out, whose server thread may still be busy with the call; the thread's
     * next call takes another.
     */
    void abandonLane() {
        LaneUse u = myLane.get();
        if (u == null || u.lane == 0) {
            return;
        }
        synchronized (laneLock) {
            keepers[u.lane - 1] = new WeakReference<>(Thread.currentThread());
        }
        u.lane = 0;
        u.busy = false;
    }

    private LaneUse laneUse() {
        LaneUse u = myLane.get();
        if (u == null) {
            u = new LaneUse();
            myLane.set(u);
        }
        return u;
    }

    /**
     * The lane freed last, else a dead keeper's, else a new one (unless {@code mayMake} is false and a lane exists:
     * then -1); kept by {@code keeper} if not null.
     */
    private int freeLane(Thread keeper, boolean mayMake) {
        synchronized (laneLock) {
            int lane = 0;
            if (freeCount > 0) {
                lane = freeLanes[--freeCount];
            } else {
                for (int i = 0; i < lanesMade && lane == 0; i++) {
                    Thread t = keepers[i] == null ? null : keepers[i].get();
                    if (keepers[i] != null && (t == null || !t.isAlive())) {
                        keepers[i] = null;
                        lane = i + 1;
                    }
                }
                if (lane == 0 && !mayMake && lanesMade > 0) {
                    return -1;
                }
                if (lane == 0 && lanesMade < Frame.LANE_ANY - 1) {
                    if (lanesMade == keepers.length) {
                        keepers = Arrays.copyOf(keepers, lanesMade * 2);
                    }
                    lane = ++lanesMade;
                }
            }
            if (lane != 0 && keeper != null) {
                keepers[lane - 1] = new WeakReference<>(keeper);
            }
            return lane;
        }
    }

    /** A thread's lane: the one its call in flight holds, or the one it keeps. */
    private static final class LaneUse {
        int lane;
        boolean busy;
        boolean kept;
    }

    boolean isDead() {
        return dead != null;
    }

    /**
     * Usable for a new call? A connection that sat idle is first checked for a peer that went away meanwhile (a
     * server restart), so that the call goes to a fresh connection instead of failing.
     */
    boolean usable() {
        if (dead != null) {
            return false;
        }
        if (inflight.get() == 0 && System.nanoTime() - lastUse > idleCheckNanos && readLock.tryLock()) {
            // (one-way calls unconfirmed do not make it busy: acknowledgements are read, a broken peer noticed)
            try {
                if (inflight.get() == 0 && !link.stillOpen()) {
                    fail(new IOException("connection to " + link.peer() + " was closed by the peer while idle"));
                    return false;
                }
            } finally {
                readLock.unlock();
            }
        }
        return true;
    }

    /** Registers {@code pc} under a fresh call id, written into its header by the caller. */
    int register(PendingCall pc) {
        int spins = 0;
        for (;;) {
            int id = nextId.getAndIncrement();
            if (id == 0) {
                continue;
            }
            pc.id = id;
            pc.failure = null;
            pc.state.set(PendingCall.WAITING);
            if (slots.compareAndSet(id & MASK, null, pc)) {
                inflight.incrementAndGet();
                return id;
            }
            if (++spins % SLOTS == 0) {
                Thread.yield(); // more than SLOTS calls in flight: wait for one to finish
            }
        }
    }

    void unregister(PendingCall pc) {
        if (slots.compareAndSet(pc.id & MASK, pc, null)) {
            inflight.decrementAndGet();
            if (pc.future) {
                futuresOut.decrementAndGet(); // its place (reserveFuture) is free
            }
        }
        lastUse = System.nanoTime();
    }

    /**
     * Whether nothing was ever sent on this connection: no call ever registered (a call in flight or a future frame
     * held back was registered first), no one-way call sent or held, no future call about to register.
     */
    boolean neverUsed() {
        return nextId.get() == 1 && onewaySent.get() == 0 && futuresOut.get() == 0;
    }

    /**
     * Closes this connection with {@code why} if nothing was ever sent on it ({@link #neverUsed}); false (and left
     * open) otherwise. A call that registers meanwhile is not sent here: {@link #send} sees {@link #closing} after its
     * registration and throws {@link Retired}, so the call goes by JRMP, never half-sent on a connection being closed
     * (this sets the flag before it looks at the registrations, the call registers before it looks at the flag: one
     * of the two sees the other).
     */
    boolean closeIfNeverUsed(IOException why) {
        closing = true;
        if (!neverUsed()) {
            closing = false;
            return false;
        }
        fail(why);
        return true;
    }

    /** Calls registered on this connection so far (one-way calls not counted). */
    int callsMade() {
        return nextId.get() - 1;
    }

    /** Whether a server declared asynchronous methods on this connection. */
    boolean learnedAsync() {
        return learnedAny;
    }

    /**
     * The connection was closed by {@link #retire}, not broken: a call that finds it so has sent nothing, and goes
     * by JRMP (it had taken the connection just before its endpoint moved to another).
     */
    static final class Retired extends IOException {
        private static final long serialVersionUID = 1L;

        Retired(String message) {
            super(message);
        }
    }

    /**
     * Its endpoint moved to another connection (remora.fabric.upgrade): no new call is given this one; it is closed
     * once nothing has been in flight on it for a second, by a daemon thread that ends then.
     */
    void retire() {
        Runnable closer = () -> {
            long quiet = TimeUnit.SECONDS.toNanos(1);
            while (dead == null) {
                LockSupport.parkNanos(quiet);
                if (inflight.get() == 0 && System.nanoTime() - lastUse > quiet && futuresOut.get() == 0) {
                    fail(new Retired("Remora connection to " + link.peer() + " was replaced by a faster one"));
                }
            }
        };
        try {
            SystemThreads.newThread(closer, "remora-retire", true).start();
        } catch (RuntimeException | Error e) {
            // no thread: it stays open until the peer or the JVM closes it
        }
    }

    /** Sends a frame; a failure kills the connection (pending calls fail with it). */
    void send(FrameBuffer frame) throws IOException {
        IOException d = dead;
        if (d != null) {
            throw d;
        }
        if (closing) {
            throw new Retired("Remora connection to " + link.peer() + " is being closed unused");
        }
        try {
            flushHeld(); // held-back one-way calls go first: a thread's later call runs after them
            link.send(frame);
        } catch (IOException e) {
            fail(e);
            throw e;
        }
        options.listener.bytes(frame.frameLength(), 0);
    }

    /**
     * Waits until {@code pc}'s reply is in {@code pc.in}.
     *
     * @throws IOException the connection broke, or the response timeout passed
     */
    void await(PendingCall pc) throws IOException {
        long timeoutNanos = TimeUnit.MILLISECONDS.toNanos(responseTimeoutMillis);
        long deadline = timeoutNanos > 0 ? System.nanoTime() + timeoutNanos : 0;
        if (pc.future) {
            pc.thread = Thread.currentThread(); // before the state is read: a reader that delivers later wakes it
            flushHeld(); // its call may be held back (remora.future.batch)
        }
        while (true) {
            int s = pc.state.get();
            if (s == PendingCall.DONE) {
                return;
            }
            if (s == PendingCall.FAILED || s == PendingCall.TIMED_OUT) {
                throw pc.failure;
            }
            if (s == PendingCall.WAITING && readLock.tryLock()) {
                try {
                    lead(pc, deadline);
                } finally {
                    readLock.unlock();
                }
                wakeNextReader(pc);
                continue;
            }
            if (deadline != 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    timeOut(pc);
                    continue;
                }
                LockSupport.parkNanos(this, Math.min(left, FOLLOWER_PARK_NANOS));
            } else {
                LockSupport.parkNanos(this, FOLLOWER_PARK_NANOS);
            }
        }
    }

    private void timeOut(PendingCall pc) {
        SocketTimeoutException e = new SocketTimeoutException("no reply from " + link.peer() + " within "
                + responseTimeoutMillis + " ms (sun.rmi.transport.tcp.responseTimeout)");
        if (pc.state.compareAndSet(PendingCall.WAITING, PendingCall.TIMED_OUT)) {
            pc.failure = e;
        }
    }

    /** Reads frames until pc is answered (or fails); called with readLock held. */
    private void lead(PendingCall pc, long deadline) {
        while (pc.state.get() == PendingCall.WAITING) {
            int timeout = 0;
            if (deadline != 0) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    timeOut(pc);
                    return;
                }
                timeout = (int) Math.max(1, TimeUnit.NANOSECONDS.toMillis(left));
            }
            if (!readOne(pc, timeout)) {
                return;
            }
        }
    }

    /**
     * Reads one frame and hands it on: a reply to its caller ({@code pc}, the reader's own, is not woken), a
     * one-way confirmation to the count. False when the connection failed. Called with readLock held.
     */
    private boolean readOne(PendingCall pc, int timeout) {
        FrameBuffer f;
        fast.prepareRead();
        try {
            f = link.receive(this, timeout);
        } catch (SocketTimeoutException e) {
            return true; // the caller's deadline check decides
        } catch (IOException e) {
            PendingCall t = deliverTo;
            deliverTo = null;
            if (t != null) { // its reply was cut short
                t.failure = e;
                t.state.set(PendingCall.FAILED);
                LockSupport.unpark(t.thread);
            }
            fail(e);
            return false;
        }
        options.listener.bytes(0, f.length());
        byte[] a = f.array();
        if (a[Frame.OFF_KIND] == Frame.ONEWAY_ACK) {
            onewayConfirmed.addAndGet(FrameBuffer.getInt(a, Frame.OFF_CALL_ID));
            return true;
        }
        PendingCall t = deliverTo;
        deliverTo = null;
        if ((a[Frame.OFF_FLAGS] & Frame.FLAG_FAST) != 0 && !decodeFast(t, f)) {
            return false; // the connection failed: its type tables are out of step
        }
        if (t != null) {
            if (t.future) {
                unregister(t); // its slot is free now: a future may be used late, or never
            }
            t.state.set(PendingCall.DONE);
            if (t != pc) {
                LockSupport.unpark(t.thread);
            }
        }
        return true;
    }

    /**
     * Decodes a fast reply for {@code t} (or only its type descriptors when nobody waits for it any more); returns
     * false when the connection had to fail because the descriptors could not be read.
     */
    private boolean decodeFast(PendingCall t, FrameBuffer f) {
        byte kind = f.array()[Frame.OFF_KIND];
        if (kind != Frame.REPLY && kind != Frame.EXCEPTION) {
            return true;
        }
        Frame.toPayload(f);
        Marshaller reader = marshalling.reader(f.array()[Frame.OFF_FLAGS]);
        if (t == null) {
            try {
                reader.skip(f);
            } catch (IOException e) {
                // the channel is broken(): below
            }
        } else {
            t.decoded = true;
            t.value = null;
            t.decodeFailure = null;
            // another caller's reply: read with that caller's context class loader (RMI's class resolution asks the
            // current thread's), so that its classes are the ones the caller's own read would get
            Thread me = Thread.currentThread();
            ClassLoader mine = me.getContextClassLoader();
            boolean swap = t.contextLoader != mine;
            try {
                if (swap) {
                    me.setContextClassLoader(t.contextLoader);
                }
                t.value = Replies.read(f, t.method, reader, t.stubLoader);
            } catch (Throwable e) {
                t.decodeFailure = e;
            } finally {
                if (swap) {
                    me.setContextClassLoader(mine);
                }
            }
        }
        IOException broken = fast.broken();
        if (broken != null) {
            IOException e = new IOException("Remora connection to " + link.peer() + " closed: a reply's type"
                    + " descriptors could not be read (" + broken + ")", broken);
            if (t != null) {
                t.failure = e;
                t.state.set(PendingCall.FAILED);
                LockSupport.unpark(t.thread);
            }
            fail(e);
            return false;
        }
        return true;
    }

    @Override
    public FrameBuffer bufferFor(byte kind, int callId, int length) {
        if (kind == Frame.REPLY || kind == Frame.EXCEPTION) {
            PendingCall pc = slots.get(callId & MASK);
            if (pc != null && pc.id == callId && pc.claim()) {
                deliverTo = pc;
                return pc.in;
            }
        }
        return discard; // a late reply to a timed-out call, or a PONG
    }

    /** After leading: if others still wait, wake one so it becomes the reader. */
    private void wakeNextReader(PendingCall self) {
        if (inflight.get() <= 1) {
            return;
        }
        for (int i = 0; i < SLOTS; i++) {
            PendingCall pc = slots.get(i);
            Thread t = pc == null ? null : pc.thread;
            if (t != null && pc != self && pc.state.get() == PendingCall.WAITING) {
                LockSupport.unpark(t);
                return;
            }
        }
    }

    /** The connection is gone: every pending call fails with {@code cause}, now. */
    void fail(IOException cause) {
        if (dead == null) {
            dead = cause;
            long lost = onewaySent.get() - onewayConfirmed.get();
            if (lost > 0) {
                String m = lost + " one-way call(s) to " + link.peer() + " were not confirmed by the server before"
                        + " the connection broke (" + cause + "); they may not have run";
                synchronized (this) {
                    unconfirmed = new IOException(m, cause);
                }
                options.listener.onewayUnconfirmed((int) Math.min(Integer.MAX_VALUE, lost), m);
            }
        }
        link.close();
        fast.close();
        for (int i = 0; i < SLOTS; i++) {
            PendingCall pc = slots.get(i);
            if (pc != null && pc.fail(cause)) {
                LockSupport.unpark(pc.thread);
            }
        }
    }
}
