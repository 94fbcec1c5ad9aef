package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.MalformedFrameException;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.net.SocketTimeoutException;
import java.rmi.Remote;
import java.rmi.UnmarshalException;
import java.util.ArrayDeque;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

/**
 * The server side of one Remora connection: reads frames on the thread that accepted the connection (JRMP's
 * connection thread, as JRMP itself does) and serves calls through the {@link Dispatcher} (JRMP's semantics).
 *
 * <p>Threads as JRMP has them: every call carries its client thread's lane ({@link Frame#OFF_LANE}), and a lane's
 * consecutive calls run on one thread for as long as they keep coming within the lane idle time (JRMP's client
 * connection timeout), as the calls of one JRMP connection run on its connection's thread; applications keep state
 * confined to that thread (ThreadLocals, a remote engine that checks its owner). {@code inline}: every call on the
 * reading thread. {@code pool}: each lane on a pool thread bound to it ({@link Lane}). {@code auto}: the reader's
 * lane (the first it meets, or the next new one once its own has been idle for 10 ms) on the reading thread, every
 * other lane on a pool thread; when a call on the reading thread outlasts the hand-off time, {@link DispatchWatchdog} binds its lane
 * to that thread and gives reading to a pool thread; the old reader stops reading once it has answered and serves its
 * lane until it is idle (the connection's own thread then waits for the end). When that lane's client thread is then the only one
 * calling, its thread takes reading back with its next call ({@link Lane#offerReading}).
 *
 * <p>A future call ({@link Frame#LANE_ANY}) belongs to no lane: it goes to a pool thread at once (on the reading thread
 * with {@code inline}), so that one client thread's futures run concurrently; the client bounds how many are out
 * (remora.async.maxPending). With remora.future.batch on a link that carries runs of frames, a future's reply that is
 * ready while other future calls of the connection still run is held back and leaves with theirs ({@link #reply}).
 *
 * <p>A call whose arguments use the fast serializer ({@link Frame#FLAG_FAST}) is decoded on the reading thread even
 * with the pool, because type ids must be learnt in arrival order ({@link FastChannel}); the pool thread then invokes
 * and answers. Fast replies are written and sent under the channel's write lock, for the same reason.
 *
 * <p>As JRMP's accepted connections, a connection on which nothing arrives for JRMP's read timeout
 * ({@code sun.rmi.transport.tcp.readTimeout}, 2 hours) while none of its calls runs is closed; a client reconnects.
 */
final class ServerConnection implements Link.Sink, Dispatcher.ReplySink, OnewayBatcher.Holder {
    private static final ThreadLocal<FrameBuffer> REPLY =
            new ThreadLocal<>() {
                @Override
                protected FrameBuffer initialValue() {
                    return new FrameBuffer(512).allowTail();
                }
            };

    private final Link link;
    private final Object connectionHandler;
    private final ExportTable exports;
    private final Executor pool;
    private final RouterOptions options;
    private final Dispatcher dispatcher;
    private final FrameBuffer inbox = new FrameBuffer(512);
    private final Marshalling marshalling;
    private final FastChannel fast;
    private final int readTimeoutMillis;
    /** Calls running on threads other than the reader's (pool tasks, a handed-off reader's call): not idle. */
    private final AtomicInteger detached = new AtomicInteger();
    /** The inline path's call state, reused. */
    private final Dispatcher.Call inlineCall = new Dispatcher.Call();
    private final ExportTable.Key key = new ExportTable.Key();
    /** Remote objects sent in results, kept reachable until the client acknowledges (JRMP's DGC ack) or times out. */
    private final AckPins pinned;

    // remora.dispatch=auto
    private static final Dispatcher.Call HANDED = new Dispatcher.Call();
    private final boolean auto;
    private final long handoffNanos;
    /**
     * null while the reader reads; the reader's own {@link Dispatcher.Call} while it runs a call (since
     * {@link #upcallSince}); {@link #HANDED} once the watchdog gave reading to a pool thread. The reader's call, not a
     * flag, so that a reader that was replaced can never take the role back from its successor.
     */
    private final AtomicReference<Dispatcher.Call> upcall = new AtomicReference<>();
    private volatile long upcallSince;
    /** Calls the reader started (written by the reader only; the watchdog sees activity). */
    private volatile long upcalls;
    /** The lane of the reader's running call, and the reader: a hand-off leaves that lane to that thread. */
    private volatile int upcallLane;
    private volatile Thread readerThread;
    /**
     * The lane a hand-off bound to a reader whose call outlasted the hand-off time, by that thread (see
     * {@link #keptLane}): hand-offs of successive readers may overlap.
     */
    private final ConcurrentHashMap<Thread, Lane> keptForReader = new ConcurrentHashMap<>();
    private final CountDownLatch ended = new CountDownLatch(1);

    // lanes (pool and auto): a client thread's calls, served on one thread while it keeps calling (Frame.OFF_LANE)
    /** Lanes bound to a thread other than the reader (auto) or to a pool thread (pool); see {@link Lane}. */
    private final ConcurrentHashMap<Integer, Lane> lanes = new ConcurrentHashMap<>();
    private final long laneIdleNanos;
    /**
     * auto: a client thread that has not called for this long gives the reading thread to another client thread that
     * has no server thread yet, as a JRMP connection freed by one client thread goes to the next that calls (the
     * first client thread's next call then gets a thread of its own). Without it, whichever thread called first
     * would keep the reading thread, and the thread that does the work would pay a hand-off on every call.
     */
    private static final long READER_LANE_IDLE_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    private volatile boolean closed;

    // one-way calls (remora.async)
    /** Exported objects whose asynchronous methods this connection's client has been told (Frame.FLAG_DECLARES). */
    private final java.util.Set<ExportTable.Export> told = ConcurrentHashMap.newKeySet();
    /** One-way calls read and not yet run. */
    private final AtomicInteger onewayQueued = new AtomicInteger();
    /** One-way calls run and not yet confirmed to the client (Frame.ONEWAY_ACK). */
    private final AtomicInteger onewayRun = new AtomicInteger();
    /** Confirm at least every this many one-way calls run. */
    private final int onewayAckEvery;
    /** The client waits for a confirmation (it sent a PING at remora.async.maxPending): confirm once drained. */
    private volatile boolean onewayWanted;

    // future calls (remora.future): run on any pool thread; their replies may leave together (remora.future.batch)
    /** Future calls handed to the pool and not yet ended. */
    private final AtomicInteger futuresRunning = new AtomicInteger();
    private final boolean replyBatching;
    private final Object heldLock = new Object();
    private final FrameBuffer held; // guarded by heldLock: future replies held back, whole frames
    private volatile int heldReplies; // written under heldLock

    /** @param readTimeoutMillis JRMP's read timeout of accepted connections; 0: none */
    ServerConnection(Link link, Object connectionHandler, ExportTable exports, Executor pool, RouterOptions options,
            Dispatcher dispatcher, int readTimeoutMillis) {
        this.link = link;
        this.connectionHandler = connectionHandler;
        this.exports = exports;
        this.pool = pool;
        this.options = options;
        this.dispatcher = dispatcher;
        this.fast = new FastChannel(options.typeCache, options.spareBytes);
        this.marshalling = new Marshalling(fast, options);
        this.readTimeoutMillis = readTimeoutMillis;
        this.pinned = new AckPins(options);
        this.auto = pool != null && options.dispatch == RouterOptions.Dispatch.AUTO;
        this.handoffNanos = TimeUnit.MICROSECONDS.toNanos(options.handoffMicros);
        this.laneIdleNanos = TimeUnit.MILLISECONDS.toNanos(options.laneIdle());
        this.onewayAckEvery = Math.max(1, options.asyncMaxPending / 4);
        this.replyBatching = options.futureBatch && pool != null && link.carriesFrameRuns();
        this.held = replyBatching ? new FrameBuffer(1024) : null;
    }

    @Override
    public FrameBuffer bufferFor(byte kind, int callId, int length) {
        // inline and auto: one buffer, reused (a call's arguments are read before anyone else may read); pool: each
        // call owns its frame while a pool thread works on it
        return pool == null || auto || (kind != Frame.CALL && kind != Frame.ONEWAY) ? inbox : new FrameBuffer(length);
    }

    /** Serves until the peer closes or misbehaves; never throws. */
    void run() {
        boolean reads = pool == null || auto; // this thread runs calls itself
        Object oldHandler = reads ? RmiInternals.setConnectionHandler(connectionHandler) : null;
        try {
            if (auto) {
                DispatchWatchdog.register(this);
            }
            drive(serve(inlineCall, null, 0));
            if (ended.getCount() > 0) {
                awaitEnd(); // another thread reads now; the caller of run() must not end the connection
            }
        } finally {
            if (reads) {
                RmiInternals.setConnectionHandler(oldHandler);
            }
        }
    }

    /**
     * Reads and serves frames until the connection ends, or, with auto dispatch, until this thread ran a call for so
     * long that reading was handed to a pool thread, or gave reading to the idle thread of the lane a call is for
     * ({@link Lane#offerReading}). {@code mine} is this reader's call state; {@code first}, when not null, a call of
     * lane {@code firstLane} already read and prepared, run first as this reader's own (a reading role taken over).
     *
     * @return the lane this thread serves now (its running call's, after a hand-off; its own client thread's, after it
     *     gave reading away), or null: nothing more for this thread (the connection ended, or no lane of its own)
     */
    private Lane serve(Dispatcher.Call mine, Dispatcher.Call first, int firstLane) {
        boolean end = true;
        readerThread = Thread.currentThread();
        int readerLane = 0; // auto: the lane this thread serves itself (0: none yet)
        long readerLaneEnd = 0; // when its last call ended
        try {
            if (first != null) {
                readerLane = firstLane;
                if (!runAsReader(first, firstLane)) {
                    end = false;
                    return keptLane(firstLane);
                }
                readerLaneEnd = System.nanoTime();
            }
            while (true) {
                fast.prepareRead();
                FrameBuffer f;
                try {
                    f = link.receive(this, readTimeoutMillis);
                } catch (SocketTimeoutException e) {
                    if (detached.get() == 0) {
                        return null; // idle for JRMP's read timeout: closed, as TCPTransport closes its connections
                    }
                    // calls run elsewhere: the connection is busy, not idle (a frame cut short by the timeout
                    // closed the link, which was out of step: the next read fails, and the connection ends)
                    continue;
                }
                options.listener.bytes(0, f.length());
                byte kind = f.array()[Frame.OFF_KIND];
                switch (kind) {
                    case Frame.CALL:
                    case Frame.ONEWAY:
                        if (f.length() < Frame.CALL_HEADER) {
                            throw new MalformedFrameException("malformed Remora frame from " + link.peer() + ": a "
                                    + Frame.kindName(kind) + " of " + f.length() + " bytes; connection closed");
                        }
                        int lane = FrameBuffer.getShort(f.array(), Frame.OFF_LANE) & 0xffff;
                        if (kind == Frame.ONEWAY) {
                            onewayQueued.incrementAndGet(); // until it has run, see onewayDone
                        } else if (lane == Frame.LANE_ANY && pool != null) {
                            // a future call: any pool thread, now (the client bounds how many are out)
                            Dispatcher.Call c = auto || (f.array()[Frame.OFF_FLAGS] & Frame.FLAG_FAST) != 0
                                    ? new Dispatcher.Call() : null;
                            if (c != null) {
                                prepare(f, c); // in arrival order, see FastChannel
                                if (fast.broken() != null) {
                                    dispatcher.complete(c, REPLY.get(), marshalling.writer, this);
                                    throw new MalformedFrameException("Remora connection from " + link.peer()
                                            + " closed: type descriptors could not be read (" + fast.broken() + ")");
                                }
                            }
                            futuresRunning.incrementAndGet();
                            try {
                                toLane(null, lane, new Task(this, c == null ? f : null, c, true));
                            } catch (RuntimeException | Error e) {
                                futuresRunning.decrementAndGet();
                                throw e;
                            }
                            break;
                        }
                        if (auto) {
                            Lane bound = lane == 0 ? null : lanes.get(lane);
                            if (bound != null && bound.owner == Thread.currentThread()) {
                                bound = null; // a hand-off that did not happen (see handOffIfStuck): still ours
                            }
                            boolean inline = bound == null && (lane == readerLane || readerLane == 0 || lane == 0
                                    || System.nanoTime() - readerLaneEnd > READER_LANE_IDLE_NANOS);
                            Dispatcher.Call c = inline ? mine : new Dispatcher.Call();
                            prepare(f, c); // in arrival order; nobody else reads until the call starts
                            if (fast.broken() != null) {
                                dispatcher.complete(c, REPLY.get(), marshalling.writer, this);
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                            if (!inline) { // another client thread's: served by its own thread, as JRMP's would be
                                if (kind == Frame.CALL && bound != null
                                        && (readerLane == 0
                                            || System.nanoTime() - readerLaneEnd > READER_LANE_IDLE_NANOS)
                                        && othersIdle(lane) && bound.offerReading(c, lane)) {
                                    // the only client thread calling has a thread of its own (a hand-off left it
                                    // the lane), idle: that thread takes this call and reading over, so that its
                                    // later calls cost no thread switch each; this thread's own lane is idle. With
                                    // other client threads calling, reading stays here (their calls run at once).
                                    // Their lanes may still be bound, idle (a lane ends after the lane idle time,
                                    // 15 s by default): until then each call of this one crossed threads (the
                                    // compare's ping after its star kernel: 11.7 against 7 us).
                                    end = false;
                                    return null;
                                }
                                toLane(bound, lane, new Task(this, null, c));
                                break;
                            }
                            if (lane != 0) {
                                readerLane = lane;
                            }
                            if (!runAsReader(mine, lane)) {
                                end = false; // a pool thread reads this connection now
                                return keptLane(lane);
                            }
                            readerLaneEnd = System.nanoTime();
                        } else if (pool == null) {
                            dispatch(f);
                            if (fast.broken() != null) {
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                        } else if ((f.array()[Frame.OFF_FLAGS] & Frame.FLAG_FAST) != 0) {
                            Dispatcher.Call c = new Dispatcher.Call();
                            prepare(f, c); // in arrival order, see FastChannel
                            if (fast.broken() != null) {
                                dispatcher.complete(c, REPLY.get(), marshalling.writer, this);
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                            toLane(lane, new Task(this, null, c));
                        } else {
                            toLane(lane, new Task(this, f, null));
                        }
                        break;
                    case Frame.ACK:
                        pinned.acknowledged(FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
                        break;
                    case Frame.PING:
                        // a client at remora.async.maxPending asks for a confirmation once its calls have run
                        onewayWanted = true;
                        if (onewayQueued.get() == 0) {
                            confirmOneways();
                        }
                        FrameBuffer pong = REPLY.get();
                        Frame.begin(pong, Frame.PONG, (byte) 0, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
                        Frame.finish(pong);
                        flushHeld();
                        link.send(pong);
                        break;
                    default:
                        throw new MalformedFrameException("unexpected " + Frame.kindName(kind) + " frame from a client "
                                + link.peer() + "; connection closed");
                }
            }
        } catch (EOFException e) {
            // the client closed: normal end
        } catch (MalformedFrameException e) {
            options.listener.note("malformed:" + link.peer(), e.getMessage());
        } catch (IOException | RuntimeException e) {
            options.listener.note("server-io:" + e.getClass().getName(), "a Remora connection from " + link.peer()
                    + " ended: " + e);
        } finally {
            if (end) {
                finish();
            }
        }
        return null;
    }

    /**
     * The reader runs call {@code c} of {@code lane} itself (an upcall, which the watchdog may hand off); false when
     * it was handed off meanwhile: a pool thread reads now.
     */
    private boolean runAsReader(Dispatcher.Call c, int lane) {
        upcallLane = lane;
        upcallSince = System.nanoTime();
        upcall.set(c);
        upcalls++; // only the reader writes it
        if (DispatchWatchdog.parked) {
            DispatchWatchdog.wake();
        }
        dispatcher.complete(c, REPLY.get(), marshalling.writer, this);
        if (!upcall.compareAndSet(c, null)) {
            detached.decrementAndGet(); // this call, handed off, has answered
            return false;
        }
        return true;
    }

    /**
     * After a hand-off: the lane the watchdog bound to this thread (its client thread's next calls), or null. Taken
     * from {@link #keptForReader}, not the lane table: the new reader may already have given this lane reading (and
     * taken it out of the table) before this thread got here.
     */
    private Lane keptLane(int lane) {
        Lane kept = keptForReader.remove(Thread.currentThread());
        return kept != null && kept.id == lane ? kept : null;
    }

    /**
     * This thread's turns at the connection, one after the other and never nested: serving {@code lane} until it is
     * idle or its thread is given reading with a call ({@link Lane#offerReading}), then reading until it gives reading
     * away or hands it off, serving the lane it keeps then, and so on.
     */
    private void drive(Lane lane) {
        while (lane != null) {
            Lane.Reading r = lane.work();
            if (r == null) {
                return;
            }
            lane = serve(r.call, r.call, r.lane);
        }
    }

    /** The connection is over: frees it and releases the thread waiting in {@link #run}. */
    private void finish() {
        closed = true;
        link.close();
        fast.close();
        pinned.clear();
        for (Lane l : lanes.values()) {
            l.wake();
        }
        if (auto) {
            DispatchWatchdog.unregister(this);
        }
        ended.countDown();
    }

    private void awaitEnd() {
        try {
            ended.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt(); // the JRMP thread is being stopped: give the connection up
            link.close();
        }
    }

    boolean inUpcall() {
        Dispatcher.Call c = upcall.get();
        return c != null && c != HANDED;
    }

    long upcallsStarted() {
        return upcalls;
    }

    long handoffNanos() {
        return handoffNanos;
    }

    /**
     * Watchdog: if the reader has been running one call for longer than the hand-off time, a pool thread becomes the
     * reader. Should no thread be had, the connection ends (its client's calls fail and it reconnects), never hangs.
     */
    void handOffIfStuck(long now) {
        Dispatcher.Call running = upcall.get();
        if (running == null || running == HANDED || now - upcallSince < handoffNanos) {
            return;
        }
        // the running call's client thread keeps its server thread: its lane is bound to the reader before the
        // hand-off, so that a next call the new reader reads (once this one has answered) goes to this thread
        int lane = upcallLane;
        Thread reader = readerThread;
        Lane kept = lane == 0 ? null : new Lane(lane, reader);
        if (kept != null && lanes.putIfAbsent(lane, kept) != null) {
            kept = null;
        }
        if (kept != null) {
            keptForReader.put(reader, kept);
        }
        if (!upcall.compareAndSet(running, HANDED)) {
            if (kept != null) {
                keptForReader.remove(reader, kept);
                lanes.remove(lane, kept); // the call ended first: the reader keeps reading and its lane
            }
            return;
        }
        detached.incrementAndGet(); // the running call, until its thread has answered
        try {
            pool.execute(this::readOnPool);
        } catch (RuntimeException | Error e) {
            options.listener.note("handoff-failed", "Remora could not hand reading of a connection from "
                    + link.peer() + " to a new thread (" + e + "); the connection is closed");
            finish();
        }
    }

    /** A pool thread that took over reading from a thread busy with a long call. */
    private void readOnPool() {
        Object old = RmiInternals.setConnectionHandler(connectionHandler);
        try {
            options.listener.handoff();
            upcall.set(null);
            drive(serve(new Dispatcher.Call(), null, 0));
        } finally {
            RmiInternals.setConnectionHandler(old);
        }
    }

    /** A call for its lane's thread (pool dispatch); lane 0 is served by any pool thread. */
    private void toLane(int lane, Task t) {
        toLane(lane == 0 || lane == Frame.LANE_ANY ? null : lanes.get(lane), lane, t);
    }

    /**
     * A call for the thread that serves its lane: {@code bound} (the lane's entry, or null) if it still takes calls,
     * else a pool thread that becomes the lane's. It counts as running (not idle) until answered.
     */
    private void toLane(Lane bound, int lane, Task t) {
        detached.incrementAndGet();
        try {
            if (bound != null && bound.offer(t)) {
                return;
            }
            if (lane == 0 || lane == Frame.LANE_ANY) {
                pool.execute(t);
                return;
            }
            Lane l = new Lane(lane, null);
            l.offer(t);
            lanes.put(lane, l); // replaces a lane whose thread let go just now
            try {
                pool.execute(l);
            } catch (RuntimeException | Error e) {
                lanes.remove(lane, l);
                throw e;
            }
        } catch (RuntimeException | Error e) {
            detached.decrementAndGet();
            throw e;
        }
    }

    /**
     * One client thread's calls (one lane): served by one thread, as a JRMP connection's calls are served by its
     * connection thread, for as long as they keep coming within the lane idle time (JRMP's client connection timeout).
     * The thread is a pool thread ({@link #run}) or, after a hand-off, the reader that ran the lane's long call.
     */
    /** Whether no lane but {@code lane} was given a call within the last {@link #READER_LANE_IDLE_NANOS}. */
    private boolean othersIdle(int lane) {
        long now = System.nanoTime();
        for (Lane l : lanes.values()) {
            if (l.id != lane && now - l.lastCall < READER_LANE_IDLE_NANOS) {
                return false;
            }
        }
        return true;
    }

    private final class Lane implements Runnable {
        final int id;
        /** The thread serving the lane; null until a pool thread starts on it. */
        volatile Thread owner;
        /** When the lane was last given a call ({@link #offer}). */
        volatile long lastCall = System.nanoTime();
        private final ArrayDeque<Task> queue = new ArrayDeque<>(2); // guarded by this
        private boolean live = true; // guarded by this: takes calls
        private boolean busy; // guarded by this: its thread is running a call
        private Reading reading; // guarded by this: reading, given to its thread with a call (offerReading)

        /** A call already read and prepared, and the reading role that comes with it. */
        final class Reading {
            final Dispatcher.Call call;
            final int lane;

            Reading(Dispatcher.Call call, int lane) {
                this.call = call;
                this.lane = lane;
            }
        }

        /**
         * The reader gives its thread call {@code c} (read and prepared) and the reading role, if that thread is
         * idle with nothing queued; the lane then ends (its thread reads and serves its calls inline). False: it is
         * busy, or gone; the caller queues the call as usual.
         */
        boolean offerReading(Dispatcher.Call c, int lane) {
            Thread o;
            synchronized (this) {
                if (!live || busy || !queue.isEmpty() || reading != null || owner == null) {
                    return false;
                }
                reading = new Reading(c, lane);
                live = false;
                lanes.remove(id, this);
                o = owner;
            }
            LockSupport.unpark(o);
            return true;
        }

        Lane(int id, Thread owner) {
            this.id = id;
            this.owner = owner;
        }

        /** Queues a call if the lane's thread still serves it. */
        boolean offer(Task t) {
            lastCall = System.nanoTime();
            Thread o;
            synchronized (this) {
                if (!live) {
                    return false;
                }
                queue.add(t);
                o = owner;
            }
            if (o != null) {
                LockSupport.unpark(o);
            }
            return true;
        }

        void wake() {
            Thread o = owner;
            if (o != null) {
                LockSupport.unpark(o);
            }
        }

        /** A pool thread that becomes the lane's. */
        @Override
        public void run() {
            owner = Thread.currentThread();
            Object old = RmiInternals.setConnectionHandler(connectionHandler);
            try {
                drive(this);
            } finally {
                RmiInternals.setConnectionHandler(old);
            }
        }

        /**
         * Serves the lane's calls until none came for the lane idle time or the connection ended (null), or until its
         * thread is given reading with a call (returned, for {@link #serve}).
         */
        Reading work() {
            long deadline = System.nanoTime() + laneIdleNanos;
            while (true) {
                Task t;
                synchronized (this) {
                    if (reading != null) {
                        Reading r = reading;
                        reading = null;
                        return r;
                    }
                    t = queue.poll();
                    if (t == null && (closed || System.nanoTime() - deadline >= 0)) {
                        live = false;
                        lanes.remove(id, this);
                        return null;
                    }
                    busy = t != null;
                }
                if (t == null) {
                    LockSupport.parkNanos(this, deadline - System.nanoTime());
                    continue;
                }
                try {
                    t.serve();
                } finally {
                    synchronized (this) {
                        busy = false;
                    }
                }
                deadline = System.nanoTime() + laneIdleNanos;
            }
        }
    }

    /** A call handed to the pool: a frame to dispatch, or a call whose arguments the reader already decoded. */
    private static final class Task implements Runnable {
        private final ServerConnection conn;
        private final FrameBuffer frame;
        private final Dispatcher.Call call;
        /** A future call (lane {@link Frame#LANE_ANY}), counted in futuresRunning. */
        private final boolean future;

        Task(ServerConnection conn, FrameBuffer frame, Dispatcher.Call call) {
            this(conn, frame, call, false);
        }

        Task(ServerConnection conn, FrameBuffer frame, Dispatcher.Call call, boolean future) {
            this.conn = conn;
            this.frame = frame;
            this.call = call;
            this.future = future;
        }

        /** On a lane's thread, whose connection handler is set. */
        void serve() {
            try {
                if (call != null) {
                    conn.dispatcher.complete(call, REPLY.get(), conn.marshalling.writer, conn);
                } else {
                    conn.dispatch(frame);
                }
            } finally {
                conn.detached.decrementAndGet();
                if (future && conn.futuresRunning.decrementAndGet() == 0) {
                    conn.flushHeld(); // the last future call running: the replies held back leave now
                }
            }
        }

        /** On a pool thread (lane 0): {@link #serve} with the connection handler set. */
        @Override
        public void run() {
            Object old = RmiInternals.setConnectionHandler(conn.connectionHandler);
            try {
                serve();
            } finally {
                RmiInternals.setConnectionHandler(old);
            }
        }
    }

    /**
     * One call: prepare and complete, on this thread. Dispatcher.complete is called directly everywhere, not through
     * a method of this class: each frame under the invocation is serialized with every exception a call throws.
     */
    void dispatch(FrameBuffer f) {
        Dispatcher.Call c = pool == null ? inlineCall : new Dispatcher.Call();
        prepare(f, c);
        dispatcher.complete(c, REPLY.get(), marshalling.writer, this);
    }

    /** The call in frame {@code f}: its target, method and arguments (see {@link Dispatcher#prepare}). */
    private void prepare(FrameBuffer f, Dispatcher.Call c) {
        byte[] a = f.array();
        c.callId = FrameBuffer.getInt(a, Frame.OFF_CALL_ID);
        c.oneway = a[Frame.OFF_KIND] == Frame.ONEWAY;
        c.future = !c.oneway && (FrameBuffer.getShort(a, Frame.OFF_LANE) & 0xffff) == Frame.LANE_ANY;
        ExportTable.Export entry;
        synchronized (key) { // the reader thread and pool threads share the key only briefly
            entry = exports.entry(key.read(a, Frame.OFF_OBJID));
        }
        f.position(Frame.CALL_HEADER);
        String[] context = null;
        EOFException malformed = null;
        if ((a[Frame.OFF_FLAGS] & Frame.FLAG_CONTEXT) != 0) {
            try {
                context = TraceContext.read(f);
                if (context == null) {
                    options.listener.note("tracing-malformed", "a call from " + link.peer() + " carried a trace"
                            + " context Remora could not read; such calls run without it");
                }
            } catch (EOFException e) {
                malformed = e;
                f.position(f.length()); // nothing is left to read as arguments
            }
        }
        dispatcher.prepare(c, entry == null ? null : entry.target(), FrameBuffer.getLong(a, Frame.OFF_HASH), f,
                marshalling.reader(a[Frame.OFF_FLAGS]), null);
        c.context = context;
        if (malformed != null && c.thrown == null) {
            c.thrown = new UnmarshalException("error unmarshalling arguments", malformed);
        }
        // the first reply about an object with asynchronous methods tells the client which they are
        if (entry != null && entry.async != null && !c.oneway && !told.contains(entry) && told.add(entry)) {
            c.declares = entry.async;
        }
        if (f == inbox) {
            inbox.relax(); // read: a connection keeps no large argument's buffer between calls (KeptBuffer.KEEP)
        }
    }

    /**
     * A one-way call has run: what it threw goes to the host (logged, counted; nobody waits for it), and the client is
     * told how many have run (Frame.ONEWAY_ACK) every {@link #onewayAckEvery} calls, and once none is left to run when
     * it asked (a PING, sent when it waits at remora.async.maxPending), so a waiting client goes on once this
     * connection's queue is drained. A client that does not wait gets no confirmation per call.
     */
    @Override
    public void onewayDone(Dispatcher.Call c, Throwable thrown) {
        if (thrown != null) {
            options.listener.onewayFailed(c.method == null ? "a one-way call from " + link.peer()
                    : AsyncMethods.name(c.method), thrown);
        }
        int run = onewayRun.incrementAndGet();
        boolean drained = onewayQueued.decrementAndGet() == 0;
        if (run >= onewayAckEvery) {
            confirmOneways();
        } else if (drained && onewayWanted) {
            onewayWanted = false;
            confirmOneways();
        }
    }

    /** Sends the client the number of one-way calls run since the last confirmation, if any. */
    private void confirmOneways() {
        int n = onewayRun.getAndSet(0);
        if (n == 0) {
            return; // another thread confirmed them
        }
        FrameBuffer ack = new FrameBuffer(Frame.HEADER); // not REPLY's: a reply may be under way on this thread
        Frame.begin(ack, Frame.ONEWAY_ACK, (byte) 0, n);
        Frame.finish(ack);
        try {
            flushHeld();
            link.send(ack);
            options.listener.bytes(ack.frameLength(), 0);
        } catch (IOException e) {
            link.close(); // the reader sees it and ends the connection
        }
    }

    @Override
    public void reply(Dispatcher.Call c, FrameBuffer out, List<Remote> pins) {
        if (onewayRun.get() != 0) {
            confirmOneways(); // on the way anyway: fewer run calls the client would count lost with the connection
        }
        if (pins != null) {
            out.array()[Frame.OFF_FLAGS] |= Frame.FLAG_NEEDS_ACK;
            pinned.pin(c.callId, pins);
        }
        if (replyBatching && c.future && out.tailLength() == 0 && out.length() < OnewayBatcher.BYTES
                && (futuresRunning.get() > 1 || heldReplies != 0)) {
            // other future calls still run (this one counts until its task ends): its reply waits for theirs, sent
            // by the last to end, by a run reaching 32 KB, by any other frame, or by the batcher's time
            boolean first;
            synchronized (heldLock) {
                first = heldReplies == 0;
                held.write(out.array(), 0, out.length());
                heldReplies++;
                if (held.length() >= OnewayBatcher.BYTES || futuresRunning.get() <= 1) {
                    sendHeld();
                    return;
                }
            }
            if (first) {
                OnewayBatcher.due(this);
            }
            return;
        }
        try {
            flushHeld(); // replies held back go first: fast frames leave in the order their type ids were assigned
            link.send(out);
            options.listener.bytes(out.frameLength(), 0);
        } catch (IOException e) {
            pinned.acknowledged(c.callId); // never sent: nothing to wait for
            link.close(); // the reader sees it and ends the connection
        } finally {
            out.relax(); // sent: a thread keeps no large result's buffer between calls (KeptBuffer.KEEP)
        }
    }

    /** Sends the future replies held back, if any (before any other frame this connection sends). */
    @Override
    public void flushHeld() {
        if (!replyBatching || heldReplies == 0) {
            return;
        }
        synchronized (heldLock) {
            sendHeld();
        }
    }

    /** Called with heldLock held. A failure ends the connection (its client's calls fail with it). */
    private void sendHeld() {
        int n = heldReplies;
        if (n == 0) {
            return;
        }
        try {
            if (!closed) {
                link.send(held);
                options.listener.bytes(held.length(), 0);
                options.listener.replyBatch(n);
            }
        } catch (IOException e) {
            link.close(); // the reader sees it and ends the connection
        } finally {
            held.clear();
            heldReplies = 0;
        }
    }

    @Override
    public void unanswerable(Dispatcher.Call c) {
        link.close();
    }
}
