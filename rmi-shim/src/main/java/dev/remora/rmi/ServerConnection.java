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
import java.util.concurrent.Executor;

/**
 * The server side of one Remora connection: reads frames on the thread that accepted the connection (JRMP's
 * connection thread, as JRMP itself does) and dispatches calls with JRMP's semantics (see {@link #dispatch}), either
 * on that thread ({@code inline}) or on the router's pool.
 *
 * <p>A call whose arguments use the fast serializer ({@link Frame#FLAG_FAST}) is decoded on the reading thread even
 * with the pool, because type ids must be learnt in arrival order ({@link FastChannel}); the pool thread then invokes
 * and answers. Fast replies are written and sent under the channel's write lock, for the same reason.
 */
final class ServerConnection implements Link.Sink {
    private static final boolean SUPPRESS_STACK_TRACES = Boolean.getBoolean("sun.rmi.server.suppressStackTraces");
    private static final ThreadLocal<FrameBuffer> REPLY = ThreadLocal.withInitial(() -> new FrameBuffer(512));

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

    ServerConnection(Link link, Object connectionHandler, ExportTable exports, Executor pool, RouterOptions options) {
        this.link = link;
        this.connectionHandler = connectionHandler;
        this.exports = exports;
        this.pool = pool;
        this.options = options;
        this.fast = new FastChannel(options.typeCache);
        this.fastReplies = options.serializer == RouterOptions.Serializer.FAST;
    }

    @Override
    public FrameBuffer bufferFor(byte kind, int callId, int length) {
        // inline: one buffer, reused; pool: each call owns its frame while a pool thread works on it
        return pool == null || (kind != Frame.CALL && kind != Frame.ONEWAY) ? inbox : new FrameBuffer(length);
    }

    /** Serves until the peer closes or misbehaves; never throws. */
    void run() {
        Object oldHandler = pool == null ? RmiInternals.setConnectionHandler(connectionHandler) : null;
        try {
            while (true) {
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
                        if (pool == null) {
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
            link.close();
            pinned.clear();
            if (pool == null) {
                RmiInternals.setConnectionHandler(oldHandler);
            }
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
                options.listener.bytes(out.length(), 0);
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
