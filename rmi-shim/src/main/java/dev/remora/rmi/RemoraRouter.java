package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.SendFaults;
import dev.remora.rmi.transport.SocketTechnology;
import dev.remora.rmi.transport.UnixTechnology;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.transport.fabric.FabricLink;
import dev.remora.rmi.transport.fabric.FabricTechnology;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.MessageTooLargeError;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.lang.reflect.Method;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.rmi.MarshalException;
import java.rmi.Remote;
import java.rmi.UnmarshalException;
import java.rmi.server.ObjID;
import java.rmi.server.RMISocketFactory;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Remora's {@link CallRouter}: carries unmodified RMI calls over Remora's protocol when the other JVM runs Remora,
 * and leaves them to JRMP otherwise.
 *
 * <p>Client: per endpoint (the LiveRef's TCPEndpoint) a {@link RemoteEndpoint} probes once, then all threads share
 * one {@link ClientConnection}. Registry, DGC and activation (well-known ObjIDs) and endpoints with custom socket
 * factories stay on JRMP. Server: the export hook fills an {@link ExportTable} (ObjID to JRMP's Target); the accept
 * hook peeks at each new connection on a JRMP port and keeps those that open with Remora's magic, serving them on
 * the accepting thread ({@link ServerConnection}); all others are replayed to JRMP untouched. Both the connections
 * and the co-located short-cut ({@link LocalCall}) serve calls through one {@link Dispatcher}, and both read replies
 * through {@link Replies}.
 */
public final class RemoraRouter implements CallRouter {
    /** Never probed: marks endpoints Remora leaves to JRMP. */
    private static final RemoteEndpoint JRMP_ONLY = new RemoteEndpoint("jrmp", 0, null, null);

    private final RouterOptions options;
    private final Technology[] technologies;
    private final ConcurrentHashMap<Object, RemoteEndpoint> endpoints = new ConcurrentHashMap<>();
    private final ExportTable exports = new ExportTable();
    private final Dispatcher dispatcher;
    private final LocalCall localCalls;
    private final ThreadLocal<PendingCall> calls = new ThreadLocal<>() {
        @Override
        protected PendingCall initialValue() {
            return new PendingCall();
        }
    };
    private final ExplicitAsync api;
    private volatile Executor pool;

    /** RMI's own objects (registry, activator, DGC) stay on JRMP. Lazy: ObjID's static init must not run at premain. */
    private static final class WellKnown {
        private static final ObjID REGISTRY = new ObjID(ObjID.REGISTRY_ID);
        private static final ObjID ACTIVATOR = new ObjID(ObjID.ACTIVATOR_ID);
        private static final ObjID DGC = new ObjID(ObjID.DGC_ID);

        static boolean is(ObjID id) {
            return id.equals(DGC) || id.equals(REGISTRY) || id.equals(ACTIVATOR);
        }
    }

    /** Cheap: touches no RMI class (they are set up by the application's own first use of RMI). */
    public RemoraRouter(RouterOptions options) {
        this.options = options;
        this.opener = new Opener(options);
        this.dispatcher = new Dispatcher(options, options.tracing ? TraceContext.find(options.listener) : null);
        if (dispatcher.tracing != null) {
            options.listener.debug("Remora's calls carry " + dispatcher.tracing.name() + " (remora.tracing)");
        }
        this.localCalls = new LocalCall(options, dispatcher);
        this.api = new ExplicitAsync(this, options);
        if (options.faultSend) {
            SendFaults.enable();
        }
        SocketTechnology tcp = new SocketTechnology(options.maxFrameBytes, options.socketSpinNanos,
                options.socketSpinMaxNanos);
        // in order of preference, last best: a Unix domain socket where both JVMs share a host, then fabric
        Technology socket = !options.socketUnix ? tcp : new UnixTechnology(tcp, options.maxFrameBytes,
                options.connectTimeoutMillis, options.listener, options.socketUnixDir != null
                ? options.socketUnixDir : UnixTechnology.defaultDirectory());
        Technology[] sockets = socket == tcp ? new Technology[] {tcp} : new Technology[] {tcp, socket};
        if (options.transport == RouterOptions.Transport.SOCKET) {
            this.technologies = sockets;
        } else {
            FabricTechnology fabric = new FabricTechnology(new FabricTechnology.Settings(
                    options.transport == RouterOptions.Transport.FABRIC, options.nativeEnabled,
                    options.fabricProvider, options.fabric, options.fabricSleepNanos,
                    options.maxFrameBytes, options.connectTimeoutMillis, options.listener)
                    .withSharedRings(options.fabricShared), tcp);
            this.technologies = java.util.Arrays.copyOf(sockets, sockets.length + 1);
            this.technologies[sockets.length] = fabric;
            // with auto and remora.fabric.upgrade, libfabric loads only for a busy connection (RemoteEndpoint)
            if (options.fabricPrewarm && !upgrades(options)) {
                fabric.prewarm();
            }
        }
    }

    /** remora.fabric.upgrade in force: transport=auto, so fabric is loaded and moved to per busy connection. */
    static boolean upgrades(RouterOptions options) {
        return options.fabricUpgrade && options.transport == RouterOptions.Transport.AUTO;
    }

    // ---------------------------------------------------------------- client

    @Override
    public Object[] invoke(Object unicastRef, Object proxy, Method method, Object[] args, long hash)
            throws Exception {
        RmiInternals.check();
        try {
            FutureResult.resolveArguments(args);
        } catch (Throwable t) { // an argument was a future whose call failed: this call is not made
            return new Object[] {null, ExplicitAsync.asThrownByStub(method, t)};
        }
        Object liveRef;
        Object ep;
        try {
            liveRef = RmiInternals.liveRef(unicastRef);
            ep = RmiInternals.endpoint(liveRef);
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        RemoteEndpoint re = endpoints.get(ep);
        if (re == null) {
            re = newEndpoint(ep);
        }
        if (re == JRMP_ONLY) {
            return null;
        }
        ObjID id;
        ExportTable.Export local;
        Object handler = null;
        try {
            id = RmiInternals.objId(liveRef);
            if (WellKnown.is(id)) {
                return null;
            }
            // re is not JRMP_ONLY: a TCP endpoint without socket factories, as every export in the table
            // co-located: the caller's thread runs the call, which no response timeout can then bound; with one set,
            // the call takes a connection, as JRMP's co-located calls take a socket that the timeout bounds
            local = options.responseTimeout() == 0 ? exports.local(id, re.port) : null;
            if (local != null) {
                handler = LocalCall.handler(local, re.host);
            }
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        if (handler != null) {
            return localCalls.invoke(local, handler, hash, Marshal.info(method), args, stubLoader(proxy));
        }
        if (re.isVanilla()) {
            return null;
        }
        ClientConnection c = re.connection();
        PendingCall paced = null; // remora.fabric.upgrade: this thread's, while a move is pending
        if (c != null && re.movePending()) {
            paced = calls.get();
            re.upgraded(c, paced); // may start moving the endpoint to fabric, for later calls
        }
        java.io.IOException unconfirmed = re.takeUnconfirmed();
        if (unconfirmed != null) { // one-way calls were lost with a connection: this call says so, as JRMP's would
            return new Object[] {null, new UnmarshalException("Error unmarshaling return header", unconfirmed)};
        }
        if (c == null || c.fast.busyOnThisThread()) {
            return null; // a call from inside a writeObject/readObject of this connection's message goes by JRMP
        }
        Object[] a = args == null ? NO_ARGS : args;
        ExplicitAsync.Capture task = api.armed();
        if (task != null) { // the first call of a Remora.async task: the task's own choice comes first
            return api.capture(task, c, id, hash, Marshal.info(method), a, method, stubLoader(proxy));
        }
        Marshal.MethodInfo mi = Marshal.info(method);
        AsyncMethods async = c.asyncOf(id);
        if (async != null) {
            if (async.isOneway(hash)) {
                return oneway(c, id, hash, mi, a);
            }
            if (async.isFuture(hash)) {
                return future(c, id, hash, mi, a, method.getReturnType(), stubLoader(proxy));
            }
        }
        try {
            if (options.adviseOneway && mi.onewayCandidate()) {
                long start = System.nanoTime();
                try {
                    return call(re, c, id, hash, mi, a, stubLoader(proxy));
                } finally {
                    mi.waited(System.nanoTime() - start);
                }
            }
            return call(re, c, id, hash, mi, a, stubLoader(proxy));
        } finally {
            if (paced != null) {
                re.returned(paced);
            }
        }
    }

    /**
     * remora.connect.early: a stub for a remote object at {@code ep} arrived (the JDK's DGC is about to make its dirty
     * call there, over a JRMP connection that the stub's first call would then reuse): opens Remora's connection to
     * {@code ep} on a background thread, so that the first call finds it open (its TCP connect, hello and, on one host,
     * Unix domain handshake cost that call 3-5 ms between two warm JVMs here, docs/startup.md) and a JRMP server is
     * known as such before it. Only for stubs that arrive in a result (a registry lookup's, a return value): not for
     * those in the arguments of a call this JVM serves (a registry's {@code bind}, a callback), which it may never
     * call itself. Not for an endpoint already known, Remora's or JRMP's, nor for references that are all RMI's own
     * objects (a registry's stub) or objects exported in this JVM (their calls are made here).
     */
    @Override
    public void stubsArrived(Object ep, java.util.List<?> liveRefs) {
        if (!options.connectEarly || liveRefs == null || serving() || RMISocketFactory.getSocketFactory() != null) {
            return; // with a global socket factory the first call says why it stays on JRMP, and counts it
        }
        try {
            RemoteEndpoint re = endpoints.get(ep);
            if (re != null) {
                return; // a connection was opened or decided on before (or is being opened)
            }
            re = newEndpoint(ep);
            if (re == JRMP_ONLY) {
                return;
            }
            for (Object ref : liveRefs) {
                ObjID id = RmiInternals.objId(ref);
                if (!WellKnown.is(id) && exports.local(id, re.port) == null) {
                    opener.add(re);
                    return;
                }
            }
        } catch (Throwable t) {
            options.listener.debug("no early connection to " + ep + ": " + t);
        }
    }

    private final Opener opener;

    /**
     * Whether this thread serves an incoming call: over Remora, or over JRMP, whose connection threads are named
     * {@code RMI TCP Connection(n)-host} while they serve (JDK 17 and 25 alike).
     */
    private static boolean serving() {
        return RmiInternals.servingCall() || Thread.currentThread().getName().startsWith("RMI TCP Connection(");
    }

    /**
     * remora.connect.early's thread: opens the endpoints' connections in turn, started when one is queued; then closes
     * each that carried no call within {@link RouterOptions#laneIdle} of its opening
     * ({@link RemoteEndpoint#closeIfNeverCalled}), and ends when nothing is queued or watched.
     */
    private static final class Opener implements Runnable {
        private final RouterOptions options;
        private final java.util.ArrayDeque<RemoteEndpoint> queue = new java.util.ArrayDeque<>();
        private boolean running; // guarded by queue
        /** The connections opened early, in the order opened: this thread's own. */
        private final java.util.ArrayDeque<Opened> watched = new java.util.ArrayDeque<>();

        Opener(RouterOptions options) {
            this.options = options;
        }

        void add(RemoteEndpoint re) {
            synchronized (queue) {
                if (queue.contains(re)) {
                    return;
                }
                queue.add(re);
                if (running) {
                    queue.notify(); // it may be waiting to close an unused connection
                    return;
                }
                running = true;
            }
            try {
                SystemThreads.newThread(this, "remora-connect", true).start();
            } catch (RuntimeException | Error e) { // no thread: the first calls open their connections
                synchronized (queue) {
                    queue.clear();
                    running = false;
                }
            }
        }

        @Override
        public void run() {
            long idleMillis = options.laneIdle();
            long idleNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(idleMillis);
            while (true) {
                RemoteEndpoint re;
                synchronized (queue) {
                    re = queue.poll();
                    if (re == null) {
                        if (watched.isEmpty()) {
                            running = false;
                            return;
                        }
                        long wait = watched.peek().at + idleNanos - System.nanoTime();
                        if (wait > 0) {
                            try {
                                queue.wait(Math.max(1, java.util.concurrent.TimeUnit.NANOSECONDS.toMillis(wait)));
                            } catch (InterruptedException e) {
                                watched.clear(); // asked to stop: what it opened stays open, as a call's would
                            }
                            continue;
                        }
                    }
                }
                if (re != null) {
                    ClientConnection c = re.openEarly(); // a failure leaves none: the first call tries again
                    if (c != null) {
                        watched.add(new Opened(re, c, System.nanoTime()));
                    }
                } else {
                    Opened o = watched.poll();
                    o.endpoint.closeIfNeverCalled(o.connection, idleMillis);
                }
            }
        }
    }

    /** A connection {@link Opener} opened, and when. */
    private static final class Opened {
        final RemoteEndpoint endpoint;
        final ClientConnection connection;
        final long at;

        Opened(RemoteEndpoint endpoint, ClientConnection connection, long at) {
            this.endpoint = endpoint;
            this.connection = connection;
            this.at = at;
        }
    }

    /** Calls a one-way candidate needs to be named by {@link #onewayCandidates}. */
    static final int CANDIDATE_CALLS = 100;

    /**
     * With {@link RouterOptions#adviseOneway}: up to {@code max} lines, most waited first, one per method that could be
     * declared one-way (void, no checked exception but RemoteException) and was called synchronously on Remora's path:
     * its name as {@code remora.async} takes it, its calls and how long their callers waited. Empty when none. Only
     * methods called at least {@value #CANDIDATE_CALLS} times: fewer save little, and a method the server declared
     * one-way is called synchronously until the client learns it (the first call to the object on a connection).
     */
    public java.util.List<String> onewayCandidates(int max) {
        java.util.List<long[]> called = new java.util.ArrayList<>(); // {calls, nanos, index}: a snapshot, for the sort
        java.util.List<Marshal.Waits> names = new java.util.ArrayList<>(Marshal.Waits.all());
        for (int i = 0; i < names.size(); i++) {
            Marshal.Waits w = names.get(i);
            long calls = w.calls.get();
            if (calls >= CANDIDATE_CALLS) {
                called.add(new long[] {calls, w.nanos.get(), i});
            }
        }
        called.sort(new java.util.Comparator<long[]>() {
            @Override
            public int compare(long[] x, long[] y) {
                return Long.compare(y[1], x[1]);
            }
        });
        java.util.List<String> lines = new java.util.ArrayList<>();
        for (int i = 0; i < called.size() && i < max; i++) {
            long[] c = called.get(i);
            lines.add(names.get((int) c[2]).name + ": " + c[0] + " calls, " + c[1] / 1_000_000
                    + " ms waiting (" + c[1] / c[0] / 1000 + " us a call)");
        }
        return lines;
    }

    private static final Object[] NO_ARGS = new Object[0];

    /**
     * Why this JVM's calls stay on JRMP once the application set a global {@code RMISocketFactory}: JRMP makes every
     * socket of an endpoint without factories with it (a tunnel, encryption, the application's socket options), and
     * Remora's own sockets would go around it.
     */
    static final String GLOBAL_FACTORY = "the application set a global RMISocketFactory"
            + " (RMISocketFactory.setSocketFactory), which makes JRMP's sockets: Remora leaves this JVM's RMI to JRMP"
            + " rather than go around it";

    /** The application's global socket factory is set (said once; counted per call or connection left to JRMP). */
    private boolean globalSocketFactory() {
        if (RMISocketFactory.getSocketFactory() == null) {
            return false;
        }
        options.listener.fallback("global-socket-factory", GLOBAL_FACTORY);
        return true;
    }

    /**
     * Whether JRMP alone serves {@code ep}, a client's or an export's endpoint: not a TCP endpoint, or one whose
     * sockets an application's factory makes (its own, or the global one). Remora never goes around that choice.
     */
    private boolean jrmpSockets(Object ep) throws Throwable {
        return !RmiInternals.isTcpEndpoint(ep) || RmiInternals.hasSocketFactories(ep) || globalSocketFactory();
    }

    private RemoteEndpoint newEndpoint(Object ep) throws Exception {
        RemoteEndpoint re;
        try {
            if (jrmpSockets(ep)) {
                // Not remembered: the endpoint holds the application's socket factories, which JRMP lets go once
                // its stubs and connections are gone (a cache keyed by endpoint would keep every factory forever).
                // Such a call pays a missed lookup and these checks, no allocation. The global factory is set once,
                // before the application's first remote call (JRMP refuses a second one), so an endpoint cached
                // before it cannot occur in practice.
                return JRMP_ONLY;
            } else {
                re = new RemoteEndpoint(RmiInternals.host(ep), RmiInternals.port(ep), options, technologies);
            }
        } catch (Exception | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        RemoteEndpoint old = endpoints.putIfAbsent(ep, re);
        return old == null ? re : old;
    }

    /** The loader of {@code stub}'s class: what the JDK's reader of its reply takes as the default loader. */
    private static ClassLoader stubLoader(Object stub) {
        return stub == null ? null : stub.getClass().getClassLoader();
    }

    private Object[] call(RemoteEndpoint re, ClientConnection c, ObjID id, long hash, Marshal.MethodInfo mi,
            Object[] args, ClassLoader stubLoader) {
        PendingCall pc = calls.get();
        pc.stubLoader = stubLoader;
        pc.contextLoader = Thread.currentThread().getContextClassLoader();
        int lane = c.takeFreeLane();
        if (lane < 0) { // every lane in a call: another connection, as JRMP opens one per concurrent call
            ClientConnection x = re.spare(c);
            if (x != null) {
                try {
                    return call(x, pc, id, hash, mi, args);
                } finally {
                    c.learnFrom(x, id); // a one-way or future method is chosen on c
                    re.giveBack(x);
                }
            }
            lane = c.takeLane();
        }
        return call(c, pc, lane, id, hash, mi, args);
    }

    private Object[] call(ClientConnection x, PendingCall pc, ObjID id, long hash, Marshal.MethodInfo mi,
            Object[] args) {
        return call(x, pc, x.takeLane(), id, hash, mi, args);
    }

    private Object[] call(ClientConnection c, PendingCall pc, int lane, ObjID id, long hash, Marshal.MethodInfo mi,
            Object[] args) {
        try {
            Object[] failed = send(c, pc, Frame.CALL, lane, id, hash, mi, args);
            if (failed != SENT) {
                return failed;
            }
            return outcome(c, pc, id, mi);
        } finally {
            c.releaseLane(lane);
            pc.forget();
        }
    }

    @Override
    public java.util.concurrent.CompletableFuture<Object> async(java.util.concurrent.Callable<?> task) {
        return api.run(task);
    }

    /** Marks a call written and sent by {@link #send}. */
    static final Object[] SENT = new Object[0];
    /** The outcome of a one-way call once sent: no result, nothing thrown. */
    private static final Object[] ONEWAY_SENT = new Object[2];

    /**
     * A one-way call (remora.async on the server): sent on the calling thread's lane, so the server runs it in order
     * with this thread's other calls; returns once the frame is written, without a reply. Waits first while
     * remora.async.maxPending of this connection's one-way calls are unconfirmed.
     */
    private Object[] oneway(ClientConnection c, ObjID id, long hash, Marshal.MethodInfo mi, Object[] args) {
        try {
            c.reserveOneway();
        } catch (java.io.IOException e) {
            return new Object[] {null, broken(c, e)};
        }
        PendingCall pc = calls.get();
        c.keepLane();
        int lane = c.takeLane();
        try {
            Object[] failed = send(c, pc, Frame.ONEWAY, lane, id, hash, mi, args);
            if (failed != SENT) {
                return failed;
            }
        } finally {
            c.releaseLane(lane);
        }
        options.listener.asyncCall(false);
        return ONEWAY_SENT;
    }

    /**
     * A future call (remora.future on the server): sent on no lane ({@link Frame#LANE_ANY}), so that the server runs it
     * on any pool thread at once, concurrently with the caller's other calls, in no order with them (as in "Implementing Asynchronous RMI in Java"
     * futures: only data dependence orders them); its reply is read by whichever thread first uses the returned
     * proxy (or by any thread that reads the connection meanwhile). Waits first while remora.async.maxPending of this
     * connection's future calls have no reply.
     */
    private Object[] future(ClientConnection c, ObjID id, long hash, Marshal.MethodInfo mi, Object[] args,
            Class<?> type, ClassLoader stubLoader) {
        try {
            c.reserveFuture();
        } catch (java.io.IOException e) {
            return e instanceof ClientConnection.Retired ? null : new Object[] {null, broken(c, e)};
        }
        PendingCall pc = new PendingCall(true);
        pc.stubLoader = stubLoader;
        pc.contextLoader = Thread.currentThread().getContextClassLoader();
        Object[] failed = send(c, pc, Frame.CALL, Frame.LANE_ANY, id, hash, mi, args);
        if (failed != SENT) {
            if (pc.id == 0) {
                c.unreserveFuture(); // never registered (its arguments, or JRMP's): the place is given back here
            }
            return failed;
        }
        options.listener.asyncCall(true);
        return new Object[] {FutureResult.proxy(type, new FutureResult(this, c, pc, id, mi)), null};
    }

    /** An UnmarshalException for a call that met a broken connection: with the lost one-way calls, if any. */
    static UnmarshalException broken(ClientConnection c, java.io.IOException e) {
        return broken(c.takeUnconfirmed(), e);
    }

    /** The same, with the lost one-way calls already taken from the connection ({@code unconfirmed}, or null). */
    private static UnmarshalException broken(java.io.IOException unconfirmed, java.io.IOException e) {
        return new UnmarshalException("Error unmarshaling return header", unconfirmed != null ? unconfirmed : e);
    }

    /**
     * Writes and sends call frame {@code kind} (CALL: registered in {@code pc} for its reply; ONEWAY: a place
     * reserved, given back unless sent). Returns {@link #SENT}, the outcome of a call that failed before it ran, or
     * null to leave it to JRMP.
     */
    Object[] send(ClientConnection c, PendingCall pc, byte kind, int lane, ObjID id, long hash,
            Marshal.MethodInfo mi, Object[] args) {
        FrameBuffer out = pc.out;
        Marshaller writer = c.marshalling.writer;
        boolean raw = mi.rawArgs;
        boolean oneway = kind == Frame.ONEWAY;
        boolean sent = false;
        TraceContext tracing = dispatcher.tracing;
        String[] context = tracing == null ? null : tracing.capture();
        if (!raw) {
            writer.lockWrite(); // held until sent: fast frames must leave in the order their type ids were assigned
        }
        try {
            try {
                Frame.begin(out, kind, raw ? 0 : writer.flag(), 0);
                out.putShort(Frame.OFF_LANE, lane);
                id.write(out);
                out.writeLong(hash);
                if (context != null && TraceContext.write(out, context)) {
                    out.array()[Frame.OFF_FLAGS] |= Frame.FLAG_CONTEXT;
                    options.listener.traceContext(true);
                }
                if (raw) {
                    Marshal.writeRaw(out, mi.params, args);
                } else {
                    writer.writeValues(out, mi.params, args);
                }
                Frame.finish(out);
            } catch (IOException e) {
                return new Object[] {null, new MarshalException("error marshalling arguments", e)};
            } catch (RuntimeException e) {
                if (Dispatcher.remorasOwn(e)) {
                    throw e; // Remora's own failure, nothing sent: the hook has JRMP make the call and says why
                }
                return new Object[] {null, e}; // as UnicastRef.invoke: not wrapped
            } catch (MessageTooLargeError e) {
                // nothing was sent: JRMP's stream has no such bound, so this call goes by JRMP
                options.listener.note("too-large", "a call's arguments do not fit in a Remora frame (" + e.getMessage()
                        + "); such calls go by JRMP");
                return null;
            }
            if (oneway) {
                try {
                    sent = true; // sendOneway gives the place back itself when it fails
                    c.sendOneway(out);
                } catch (IOException e) {
                    return unsent(c, e);
                }
                return SENT;
            }
            pc.method = mi;
            pc.decoded = false;
            int callId = c.register(pc);
            out.putInt(Frame.OFF_CALL_ID, callId);
            try {
                if (pc.future) {
                    c.sendFuture(out);
                } else {
                    c.send(out);
                }
            } catch (IOException e) {
                c.unregister(pc);
                // retired (its endpoint moved to a new connection) before this call was written: JRMP makes it
                return e instanceof ClientConnection.Retired ? null : unsent(c, e);
            }
            return SENT;
        } finally {
            if (!raw) {
                writer.unlockWrite();
            }
            if (oneway && !sent) {
                c.unreserveOneway();
            }
        }
    }

    /**
     * A call or one-way call whose frame did not leave whole, and the connection with it. When Remora's own code failed
     * while sending ({@link Link.NotSent}), JRMP makes the call (a one-way one too, waiting for its reply), and the
     * next call opens a new connection; unless one-way calls sent earlier on that connection were not confirmed: they
     * may not have run, and may still be waiting to run on the server, where JRMP's call could overtake them, so this
     * call reports them, as any call that meets a broken connection does.
     */
    private Object[] unsent(ClientConnection c, IOException e) {
        IOException unconfirmed = c.takeUnconfirmed();
        if (unconfirmed == null && e instanceof Link.NotSent) {
            options.listener.fallback("not-sent", e.getMessage() + "; such calls go by JRMP");
            return null;
        }
        return new Object[] {null, broken(unconfirmed, e)};
    }

    /**
     * Waits for the reply to the call registered in {@code pc} and reads it, as JRMP's client does ({@link Replies});
     * learns the object's asynchronous methods when the reply carries them.
     */
    Object[] outcome(ClientConnection c, PendingCall pc, ObjID id, Marshal.MethodInfo mi) {
        int callId = pc.id;
        try {
            c.await(pc);
        } catch (IOException e) {
            if (e instanceof SocketTimeoutException && !pc.future) {
                c.abandonLane();
            }
            // a future's reply may be awaited by Remora's own thread (Remora.async) or never: lost one-way calls are
            // left for the caller's next call to report
            return new Object[] {null, pc.future ? new UnmarshalException("Error unmarshaling return header", e)
                    : broken(c, e)};
        } finally {
            c.unregister(pc);
        }
        FrameBuffer in = pc.in;
        byte[] a = in.array();
        try {
            c.learn(id, a);
            if (pc.decoded) { // a fast reply, which the connection's reader decoded in arrival order
                Throwable failure = pc.decodeFailure;
                pc.decodeFailure = null;
                return Replies.outcome(a[Frame.OFF_KIND], a[Frame.OFF_FLAGS], pc.value, failure, false);
            }
            return Replies.outcome(in, mi, c.marshalling, false, pc.stubLoader);
        } finally {
            pc.value = null;
            if ((a[Frame.OFF_FLAGS] & Frame.FLAG_NEEDS_ACK) != 0) {
                // the references in the result are registered with the DGC now: the server may let go of them
                FrameBuffer out = pc.out;
                try {
                    Frame.begin(out, Frame.ACK, (byte) 0, callId);
                    Frame.finish(out);
                    c.send(out);
                } catch (IOException ignored) {
                    // the connection is gone; the server drops its pins with it
                }
            }
        }
    }

    // ---------------------------------------------------------------- server

    @Override
    public void exported(Object unicastServerRef, Object impl, Object stub) {
        try {
            RmiInternals.check();
            Object liveRef = RmiInternals.liveRef(unicastServerRef);
            Object ep = RmiInternals.endpoint(liveRef);
            if (jrmpSockets(ep)) {
                return; // custom socket factories (SSL...): JRMP only, Remora never weakens that choice
            }
            ObjID id = RmiInternals.objId(liveRef);
            if (WellKnown.is(id)) {
                return;
            }
            Object target = RmiInternals.target((Remote) impl);
            if (target != null) {
                exports.add(id, target, ep, options.async.isEmpty() ? null
                        : AsyncMethods.of(impl.getClass(), options.async, options.listener));
            }
        } catch (Throwable t) {
            options.listener.note("export:" + t.getClass().getName(), "Remora could not register an exported"
                    + " object, its calls stay on JRMP: " + t);
            return;
        }
        try {
            // the class's method hashes, computed now as JRMP computes its own at export, not in the first call
            // (about 1.5 ms of SHA-1 digests in a fresh JVM, while the caller waits)
            RemoteMethods.of(impl.getClass());
        } catch (RuntimeException e) {
            // not kept: the first call meets the same failure and reports it there
        }
    }

    @Override
    public int exiting() {
        int n = 0;
        for (Technology t : technologies) {
            n += t.exiting();
        }
        return n;
    }

    @Override
    public Socket accept(Object connectionHandler, Socket socket) throws IOException {
        RmiInternals.check();
        if (socket.getClass() != Socket.class || globalSocketFactory()) {
            return socket; // a custom server socket factory's socket (SSL, ...), or the global factory's: JRMP's
        }
        if (connectionHandler != null) { // JRMP's ConnectionHandler, from the hook; none in tests of the hello alone
            try {
                if (RmiInternals.acceptedByServerSocketFactory(connectionHandler)) {
                    // a custom factory whose sockets are plain ones: its endpoint's objects are JRMP's (exported()
                    // left them out), so a Remora hello there must reach JRMP, which refuses it, and the client goes
                    // on in JRMP
                    return socket;
                }
            } catch (Throwable t) {
                options.listener.note("accept-endpoint:" + t.getClass().getName(), "Remora cannot tell which"
                        + " endpoint accepted a connection, so connections stay on JRMP: " + t);
                return socket;
            }
        }
        // as ConnectionHandler.run0 does before it reads a byte: no Nagle (the fabric handshake's answers, each
        // written after its predecessor's reply, waited out the client's delayed ACK, 40 ms twice, without), and
        // JRMP's read timeout
        try {
            socket.setTcpNoDelay(true);
        } catch (IOException e) {
            // as run0: go on without
        }
        int readTimeout = options.readTimeout();
        if (readTimeout > 0) {
            socket.setSoTimeout(readTimeout);
        }
        InputStream in;
        byte[] head = new byte[Frame.HELLO_LENGTH];
        int n = 0;
        try {
            in = socket.getInputStream();
            while (n < 4) { // blocks as JRMP's own first read would, as long
                int k = in.read(head, n, 4 - n);
                if (k < 0) {
                    break;
                }
                n += k;
            }
        } catch (IOException e) {
            // as run0, whose first read would have failed the same way (timed out, reset, or the socket's input shut
            // by the JVM's exit, ExitRelease): the connection is closed, and nothing is printed
            socket.close();
            return null;
        }
        if (n < 4 || FrameBuffer.getInt(head, 0) != Frame.MAGIC) {
            try {
                return new ReplaySocket(socket, head, n);
            } catch (IOException e) {
                // its input shut since the read above (the JVM's exit, ExitRelease, which ends a first read with
                // EOF): the connection is over, as above, and nothing is printed (it escaped the hook before: one
                // line on stderr, which the JDK's NoConsoleOutput test caught)
                socket.close();
                return null;
            }
        }
        Link link;
        try {
            while (n < Frame.HELLO_LENGTH) {
                int k = in.read(head, n, Frame.HELLO_LENGTH - n);
                if (k < 0) {
                    throw new IOException("closed during the hello");
                }
                n += k;
            }
            int offered = head[6];
            short version = FrameBuffer.getShort(head, 4);
            Technology chosen = null;
            for (Technology t : technologies) { // the last both have: the best
                if (version == Frame.VERSION && (offered & t.bit()) != 0 && t.available()) {
                    chosen = t;
                }
            }
            if (version != Frame.VERSION) { // answered with this side's version and no technology: JRMP it is
                options.listener.note("hello-version:" + version, "a client at "
                        + socket.getInetAddress().getHostAddress() + " speaks Remora protocol version " + version
                        + ", this JVM version " + Frame.VERSION + " (different Remora releases); its calls stay on"
                        + " JRMP");
            }
            FrameBuffer answer = Frame.hello(chosen == null ? 0 : chosen.bit());
            OutputStream out = socket.getOutputStream();
            out.write(answer.array(), 0, answer.length());
            if (chosen == null) {
                socket.close();
                return null;
            }
            link = chosen.open(socket, false);
            options.listener.linked(Technology.kind(link), "Remora connection from " + link.peer() + " over "
                    + Technology.describe(link));
        } catch (IOException e) {
            socket.close();
            return null;
        }
        new ServerConnection(link, connectionHandler, exports, pool(), options, dispatcher, readTimeout).run();
        return null;
    }

    private Executor pool() {
        if (options.dispatch == RouterOptions.Dispatch.INLINE) {
            return null;
        }
        Executor p = pool;
        if (p == null) {
            synchronized (this) {
                p = pool;
                if (p == null) {
                    ThreadPoolExecutor t = new ThreadPoolExecutor(options.poolThreads, Integer.MAX_VALUE, 60,
                            TimeUnit.SECONDS, new SynchronousQueue<>(), new DispatchThreads());
                    t.prestartAllCoreThreads();
                    pool = p = t;
                }
            }
        }
        return p;
    }

    /**
     * Daemon threads (they never keep a JVM alive) made as JRMP makes its own ({@link SystemThreads}): the pool grows
     * from whatever thread needs one, and must not keep that thread's context class loader.
     */
    private static final class DispatchThreads implements ThreadFactory {
        private final AtomicInteger n = new AtomicInteger();

        @Override
        public Thread newThread(Runnable r) {
            return SystemThreads.newThread(r, "remora-dispatch-" + n.incrementAndGet(), true);
        }
    }

    /** Starts the dispatch pool now (a server calls this at install so no thread is made during a call). */
    public void start() {
        pool();
    }
}
