package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.MalformedFrameException;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.rmi.MarshalException;
import java.rmi.NoSuchObjectException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.ServerError;
import java.rmi.ServerException;
import java.rmi.UnmarshalException;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

/**
 * The server side of one Remora connection: reads frames on the thread that accepted the connection (JRMP's
 * connection thread, as JRMP itself does) and dispatches calls with JRMP's semantics (see {@link #dispatch}), either
 * on that thread ({@code inline}), on the router's pool ({@code pool}), or ({@code auto}) on the reading thread
 * until a call outlasts the hand-off time, when {@link DispatchWatchdog} gives reading to a pool thread and the
 * thread that ran the call stops reading once it has answered (the connection's thread then waits for the end).
 *
 * <p>A call whose arguments use the fast serializer ({@link Frame#FLAG_FAST}) is decoded on the reading thread even
 * with the pool, because type ids must be learnt in arrival order ({@link FastChannel}); the pool thread then invokes
 * and answers. Fast replies are written and sent under the channel's write lock, for the same reason.
 */
final class ServerConnection implements Link.Sink {
    private static final boolean SUPPRESS_STACK_TRACES = Boolean.getBoolean("sun.rmi.server.suppressStackTraces");
    private static final ThreadLocal<FrameBuffer> REPLY =
            ThreadLocal.withInitial(() -> new FrameBuffer(512).allowTail());

    private final Link link;
    private final Object connectionHandler;
    private final ExportTable exports;
    private final Executor pool;
    private final RouterOptions options;
    private final FrameBuffer inbox = new FrameBuffer(512);
    private final FastChannel fast;
    private final boolean fastReplies;
    /** The inline path's call state, reused. */
    private final Call inlineCall = new Call();
    private final ExportTable.Key key = new ExportTable.Key();
    /** Remote objects sent in results, kept reachable until the client acknowledges (JRMP's DGC ack). */
    private final Map<Integer, List<Remote>> pinned = new ConcurrentHashMap<>();

    // remora.dispatch=auto
    private static final Call HANDED = new Call();
    private final boolean auto;
    private final long handoffNanos;
    /**
     * null while the reader reads; the reader's own {@link Call} while it runs a call (since {@link #upcallSince});
     * {@link #HANDED} once the watchdog gave reading to a pool thread. The reader's call, not a flag, so that a reader
     * that was replaced can never take the role back from its successor.
     */
    private final AtomicReference<Call> upcall = new AtomicReference<>();
    private volatile long upcallSince;
    /** Calls the reader started (written by the reader only; the watchdog sees activity). */
    private volatile long upcalls;
    private final CountDownLatch ended = new CountDownLatch(1);

    ServerConnection(Link link, Object connectionHandler, ExportTable exports, Executor pool, RouterOptions options) {
        this.link = link;
        this.connectionHandler = connectionHandler;
        this.exports = exports;
        this.pool = pool;
        this.options = options;
        this.fast = new FastChannel(options.typeCache, options.spareBytes);
        this.fastReplies = options.serializer == RouterOptions.Serializer.FAST;
        this.auto = pool != null && options.dispatch == RouterOptions.Dispatch.AUTO;
        this.handoffNanos = TimeUnit.MICROSECONDS.toNanos(options.handoffMicros);
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
            if (!serve(inlineCall)) {
                awaitEnd(); // a pool thread reads now; the caller of run() must not end the connection
            }
        } finally {
            if (reads) {
                RmiInternals.setConnectionHandler(oldHandler);
            }
        }
    }

    /**
     * Reads and serves frames until the connection ends (true) or, with auto dispatch, until this thread ran a call
     * for so long that reading was handed to a pool thread (false). {@code mine} is this reader's call state.
     */
    private boolean serve(Call mine) {
        boolean end = true;
        try {
            while (true) {
                fast.prepareRead();
                FrameBuffer f = link.receive(this, 0);
                options.listener.bytes(0, f.length());
                byte kind = f.array()[Frame.OFF_KIND];
                switch (kind) {
                    case Frame.CALL:
                    case Frame.ONEWAY:
                        if (f.length() < Frame.CALL_HEADER) {
                            throw new MalformedFrameException("malformed Remora frame from " + link.peer() + ": a "
                                    + Frame.kindName(kind) + " of " + f.length() + " bytes; connection closed");
                        }
                        if (auto) {
                            prepare(f, mine); // in arrival order; nobody else reads until the call starts
                            if (fast.broken() != null) {
                                complete(mine);
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                            upcallSince = System.nanoTime();
                            upcall.set(mine);
                            upcalls++; // only this thread writes it
                            if (DispatchWatchdog.parked) {
                                DispatchWatchdog.wake();
                            }
                            complete(mine);
                            if (!upcall.compareAndSet(mine, null)) {
                                end = false; // handed off: a pool thread reads this connection now
                                return false;
                            }
                        } else if (pool == null) {
                            dispatch(f);
                            if (fast.broken() != null) {
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                        } else if ((f.array()[Frame.OFF_FLAGS] & Frame.FLAG_FAST) != 0) {
                            Call c = new Call();
                            prepare(f, c); // in arrival order, see FastChannel
                            if (fast.broken() != null) {
                                complete(c);
                                throw new MalformedFrameException("Remora connection from " + link.peer()
                                        + " closed: type descriptors could not be read (" + fast.broken() + ")");
                            }
                            pool.execute(new Task(this, null, c));
                        } else {
                            pool.execute(new Task(this, f, null));
                        }
                        break;
                    case Frame.ACK:
                        pinned.remove(FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
                        break;
                    case Frame.PING:
                        FrameBuffer pong = REPLY.get();
                        Frame.begin(pong, Frame.PONG, (byte) 0, FrameBuffer.getInt(f.array(), Frame.OFF_CALL_ID));
                        Frame.finish(pong);
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
        return true;
    }

    /** The connection is over: frees it and releases the thread waiting in {@link #run}. */
    private void finish() {
        link.close();
        fast.close();
        pinned.clear();
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
        Call c = upcall.get();
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
        Call running = upcall.get();
        if (running == null || running == HANDED || now - upcallSince < handoffNanos
                || !upcall.compareAndSet(running, HANDED)) {
            return;
        }
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
            serve(new Call());
        } finally {
            RmiInternals.setConnectionHandler(old);
        }
    }

    /** A call handed to the pool: a frame to dispatch, or a call whose arguments the reader already decoded. */
    private static final class Task implements Runnable {
        private final ServerConnection conn;
        private final FrameBuffer frame;
        private final Call call;

        Task(ServerConnection conn, FrameBuffer frame, Call call) {
            this.conn = conn;
            this.frame = frame;
            this.call = call;
        }

        @Override
        public void run() {
            Object old = RmiInternals.setConnectionHandler(conn.connectionHandler);
            try {
                if (call != null) {
                    conn.complete(call);
                } else {
                    conn.dispatch(frame);
                }
            } finally {
                RmiInternals.setConnectionHandler(old);
            }
        }
    }

    /** One call between reading its arguments and answering it. */
    private static final class Call {
        int callId;
        boolean oneway;
        Object target;
        Remote impl;
        Method method;
        Marshal.MethodInfo info;
        Object[] params;
        ClassLoader loader;
        boolean entered;
        Throwable thrown;
    }

    /**
     * One call, as JRMP's Transport.serviceCall + UnicastServerRef.dispatch: unknown or unexported object ->
     * NoSuchObjectException (stack trace cleared); unknown method hash -> UnmarshalException wrapped in
     * ServerException; bad arguments -> UnmarshalException wrapped; the method's Error -> ServerError, its
     * RemoteException -> ServerException, anything else as thrown; the impl's class loader is the context class
     * loader during the call; RemoteServer.getClientHost() answers.
     */
    void dispatch(FrameBuffer f) {
        Call c = pool == null ? inlineCall : new Call();
        prepare(f, c);
        complete(c);
    }

    /** Finds the target and method and reads the arguments (the impl's loader as context class loader). */
    private void prepare(FrameBuffer f, Call c) {
        byte[] a = f.array();
        c.callId = FrameBuffer.getInt(a, Frame.OFF_CALL_ID);
        c.oneway = a[Frame.OFF_KIND] == Frame.ONEWAY;
        boolean fastArgs = (a[Frame.OFF_FLAGS] & Frame.FLAG_FAST) != 0;
        long hash = FrameBuffer.getLong(a, Frame.OFF_HASH);
        Object target;
        synchronized (key) { // the reader thread and pool threads share the key only briefly
            target = exports.get(key.read(a, Frame.OFF_OBJID));
        }
        c.target = target;
        c.impl = null;
        c.method = null;
        c.info = null;
        c.params = null;
        c.loader = null;
        c.entered = false;
        c.thrown = null;
        f.position(Frame.CALL_HEADER);
        boolean argsRead = false;
        try {
            // As ObjectTable's lookup: an unexported object is no longer in the table.
            Remote impl = target == null || RmiInternals.targetRemoved(target) ? null
                    : RmiInternals.targetImpl(target);
            if (impl == null) {
                throw new NoSuchObjectException("no such object in table");
            }
            c.impl = impl;
            RmiInternals.enterCall(target);
            c.entered = true;
            Thread thread = Thread.currentThread();
            ClassLoader saved = thread.getContextClassLoader();
            ClassLoader ccl = RmiInternals.targetLoader(target);
            c.loader = ccl;
            try {
                if (ccl != saved) {
                    thread.setContextClassLoader(ccl);
                }
                Method m = RemoteMethods.of(impl.getClass()).find(hash);
                if (m == null) {
                    throw new UnmarshalException("unrecognized method hash: method not supported by remote object");
                }
                Marshal.MethodInfo mi = Marshal.info(m);
                c.method = m;
                c.info = mi;
                try {
                    argsRead = true;
                    c.params = fastArgs && !mi.rawArgs
                            ? Marshal.readFast(fast, f, mi.params, RmiInternals.targetFilter(target))
                            : Marshal.read(f, mi.params, mi.rawArgs, true);
                } catch (IOException | ClassNotFoundException e) {
                    throw new UnmarshalException("error unmarshalling arguments", (Exception) e);
                }
            } finally {
                if (ccl != saved) {
                    thread.setContextClassLoader(saved);
                }
            }
        } catch (Throwable e) {
            c.thrown = e;
        }
        if (fastArgs && !argsRead) {
            try {
                Marshal.skipFast(fast, f); // nobody reads these arguments, but their type descriptors count
            } catch (IOException ignored) {
                // fast.broken() says so; the reader closes the connection
            }
        }
    }

    /** Invokes the method (unless preparing failed) and answers. */
    private void complete(Call c) {
        Object target = c.target;
        int callId = c.callId;
        FrameBuffer out = REPLY.get();
        Throwable thrown = c.thrown;
        List<Remote> pins = null;
        boolean locked = false;
        try {
            if (thrown == null) {
                Thread thread = Thread.currentThread();
                ClassLoader saved = thread.getContextClassLoader();
                ClassLoader ccl = c.loader;
                try {
                    if (ccl != saved) {
                        thread.setContextClassLoader(ccl);
                    }
                    Object result;
                    try {
                        result = c.method.invoke(c.impl, c.params);
                    } catch (InvocationTargetException e) {
                        throw e.getTargetException();
                    }
                    if (!c.oneway) {
                        Marshal.MethodInfo mi = c.info;
                        boolean fastResult = fastReplies && !mi.rawResult;
                        if (fastResult) {
                            fast.lockWrite(); // held until sent, see FastChannel
                            locked = true;
                        }
                        Frame.begin(out, Frame.REPLY, fastResult ? Frame.FLAG_FAST : 0, callId);
                        try {
                            pins = fastResult ? Marshal.writeOneFast(fast, out, mi.result, result, options.listener)
                                    : Marshal.writeOne(out, mi.result, result, mi.rawResult);
                        } catch (IOException e) {
                            throw new MarshalException("error marshalling return", e);
                        }
                    }
                } finally {
                    if (ccl != saved) {
                        thread.setContextClassLoader(saved);
                    }
                }
            }
        } catch (Throwable e) {
            thrown = e;
        } finally {
            c.params = null;
            if (c.entered) {
                RmiInternals.exitCall(target);
            }
        }
        try {
            if (c.oneway) {
                return;
            }
            if (thrown != null) {
                if (fastReplies && !locked) {
                    fast.lockWrite();
                    locked = true;
                }
                pins = null;
                if (!writeException(out, callId, thrown, c.entered)) {
                    link.close();
                    return;
                }
            }
            if (pins != null) {
                out.array()[Frame.OFF_FLAGS] |= Frame.FLAG_NEEDS_ACK;
                pinned.put(callId, pins);
            }
            Frame.finish(out);
            try {
                link.send(out);
                options.listener.bytes(out.frameLength(), 0);
            } catch (IOException e) {
                pinned.remove(callId);
                link.close(); // the reader sees it and ends the connection
            }
        } finally {
            if (locked) {
                fast.unlockWrite();
            }
        }
    }

    /** An EXCEPTION frame for {@code thrown}, wrapped as JRMP does; false if not even a MarshalException fits. */
    private boolean writeException(FrameBuffer out, int callId, Throwable thrown, boolean entered) {
        byte flags = fastReplies ? Frame.FLAG_FAST : 0;
        Frame.begin(out, Frame.EXCEPTION, flags, callId);
        Throwable t = thrown;
        if (!entered && t instanceof NoSuchObjectException) {
            t.setStackTrace(new StackTraceElement[0]); // as Transport.serviceCall: sent as is, trace cleared
        } else if (t instanceof Error) {
            t = new ServerError("Error occurred in server thread", (Error) t);
        } else if (t instanceof RemoteException) {
            t = new ServerException("RemoteException occurred in server thread", (Exception) t);
        }
        if (SUPPRESS_STACK_TRACES) {
            for (Throwable c = t; c != null; c = c.getCause()) {
                c.setStackTrace(new StackTraceElement[0]);
            }
        }
        try {
            writeExceptionPayload(out, t);
            return true;
        } catch (IOException e) {
            Frame.begin(out, Frame.EXCEPTION, flags, callId);
            try {
                writeExceptionPayload(out, new MarshalException("error marshalling exception " + t, e));
                return true;
            } catch (IOException e2) {
                return false;
            }
        }
    }

    private void writeExceptionPayload(FrameBuffer out, Throwable t) throws IOException {
        if (fastReplies) {
            Marshal.writeExceptionFast(fast, out, t, options.listener);
        } else {
            Marshal.writeException(out, t);
        }
    }
}
