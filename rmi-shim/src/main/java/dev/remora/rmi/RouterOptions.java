package dev.remora.rmi;

import dev.remora.fabric.FabricOptions;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.serializer.TypeCacheMode;

/**
 * Settings of {@link RemoraRouter}, as plain values with defaults (the agent maps its {@code remora.*} properties onto
 * them; this module reads no {@code remora.*} property itself).
 */
public final class RouterOptions {
    /**
     * Server threads: AUTO runs a call on the thread that read it and, when the call outlasts
     * {@link #handoffMicros}, gives reading to a pool thread ("Manta" §2.2); POOL hands every call to a pool made
     * ahead of time; INLINE runs every call on the reading thread (a blocked call holds up its connection).
     */
    public enum Dispatch { AUTO, POOL, INLINE }

    /** Technologies offered: socket only, or the fabric one too (auto and fabric differ only in how loud a fallback is). */
    public enum Transport { AUTO, SOCKET, FABRIC }

    /** How non-primitive arguments, results and exceptions are marshalled: Remora's serializer or JDK serialization. */
    public enum Serializer { FAST, JDK }

    Dispatch dispatch = Dispatch.AUTO;
    long handoffMicros = 20_000;
    int poolThreads = Math.max(4, 2 * Runtime.getRuntime().availableProcessors());
    int connections = 16;
    int probeTimeoutMillis = 2000;
    int connectTimeoutMillis = 10_000;
    int idleCheckMillis = 1000;
    int maxFrameBytes = dev.remora.serializer.MessageTooLargeError.MAX_BYTES;
    RouterListener listener = RouterListener.NONE;
    Transport transport = Transport.AUTO;
    boolean nativeEnabled = true;
    String fabricProvider = "auto";
    /** The fabric endpoints' options, one record from here down to each endpoint (FabricTechnology). */
    FabricOptions fabric = FabricOptions.defaults();
    boolean fabricShared = true;
    boolean fabricUpgrade = true;
    boolean fabricUpgradeAnyPace;
    /** remora.fabric.upgrade.after: calls a connection carries before its move is first decided. */
    int fabricUpgradeAfter = 65536;
    /** Probe libfabric on a daemon thread when the router is made (tests that count threads turn it off). */
    boolean fabricPrewarm = true;
    long fabricSleepNanos = 1_000_000;
    long socketSpinNanos = 20_000;
    long socketSpinMaxNanos; // no adaptation unless asked: docs/waiting.md, "Two wake-ups a call"
    boolean socketUnix = true;
    java.nio.file.Path socketUnixDir;
    boolean faultSerializer;
    boolean faultSend;
    Serializer serializer = Serializer.FAST;
    TypeCacheMode typeCache = TypeCacheMode.CONNECTION;
    long spareBytes = 16L << 20;
    /** The server's asynchronous methods (remora.async, remora.future). */
    AsyncMethods.Declarations async = AsyncMethods.Declarations.NONE;
    int asyncMaxPending = 1024;
    boolean asyncBatch = true;
    /** A one-way call this soon after the connection's previous one is held back with it (remora.async.batch). */
    long onewayRunGapNanos = OnewayBatcher.DELAY_NANOS;
    boolean futureBatch = true;
    /** remora.stats: time the synchronous calls of methods that could be one-way ({@link #adviseOneway}). */
    boolean adviseOneway;
    /** remora.connect.early: open a server's connection as a stub for it arrives ({@link #connectEarly}). */
    boolean connectEarly = true;
    /** remora.tracing: carry a tracing agent's context with calls ({@link #tracing}). */
    boolean tracing = true;
    /** JRMP's own settings unless a test sets them: null / -1 = the value JRMP uses ({@link RmiInternals}). */
    private Boolean suppressStackTraces;
    private int readTimeoutMillis = -1;
    private int handshakeTimeoutMillis = -1;
    private int responseTimeoutMillis = -1;
    private long laneIdleMillis = -1;
    private long dgcAckTimeoutMillis = -1;

    public static RouterOptions defaults() {
        return new RouterOptions();
    }

    /** remora.dispatch: auto (default), pool or inline. */
    public RouterOptions dispatch(Dispatch d) {
        dispatch = d;
        return this;
    }

    /**
     * {@link Dispatch#AUTO}: how long a call may run on the reading thread before a pool thread takes over reading
     * that connection (checked every half of it, so a hand-off comes after one to one and a half times this).
     */
    public RouterOptions handoffMicros(long micros) {
        handoffMicros = Math.max(10, micros);
        return this;
    }

    /**
     * remora.connections: Remora connections a client opens to one server at most. A synchronous call made while every
     * lane of the first one is in a call takes another ({@link RemoteEndpoint#spare}); 1 = every call on one.
     */
    public RouterOptions connections(int n) {
        connections = Math.max(1, n);
        return this;
    }

    /** Threads started ahead of time for {@link Dispatch#POOL}; more are added only while all are busy. */
    public RouterOptions poolThreads(int n) {
        poolThreads = Math.max(1, n);
        return this;
    }

    /**
     * How long a client waits for a server's answer to Remora's hello on the first call to an endpoint before it takes
     * the endpoint for a plain JRMP one (a JRMP server answers at once by closing).
     */
    public RouterOptions probeTimeoutMillis(int ms) {
        probeTimeoutMillis = ms;
        return this;
    }

    /** TCP connect timeout of Remora's connections. */
    public RouterOptions connectTimeoutMillis(int ms) {
        connectTimeoutMillis = ms;
        return this;
    }

    /**
     * How long a client waits for a call's reply (0: forever); by default JRMP's own
     * {@code sun.rmi.transport.tcp.responseTimeout}, as {@code TCPChannel} read it (tests set it here).
     */
    public RouterOptions responseTimeoutMillis(int ms) {
        responseTimeoutMillis = Math.max(0, ms);
        return this;
    }

    int responseTimeout() {
        return responseTimeoutMillis >= 0 ? responseTimeoutMillis : Math.max(0, RmiInternals.responseTimeout());
    }

    /**
     * How long a server thread that served a client thread's call waits for that client thread's next call before it
     * lets the client thread go (its next call is then served by any thread); by default JRMP's own
     * {@code sun.rmi.transport.connectionTimeout} (15 s), how long a JRMP client keeps an idle connection and so its
     * server thread (tests set it here).
     */
    public RouterOptions laneIdleMillis(long ms) {
        laneIdleMillis = Math.max(1, ms);
        return this;
    }

    long laneIdle() {
        return laneIdleMillis >= 0 ? laneIdleMillis : Math.max(1, RmiInternals.connectionTimeout());
    }

    /** A connection idle longer than this is checked for a closed peer before a call is sent on it. */
    public RouterOptions idleCheckMillis(int ms) {
        idleCheckMillis = ms;
        return this;
    }

    /** Largest frame accepted from a peer; a larger length closes the connection as malformed. */
    public RouterOptions maxFrameBytes(int n) {
        maxFrameBytes = n;
        return this;
    }

    public RouterOptions listener(RouterListener l) {
        listener = l == null ? RouterListener.NONE : l;
        return this;
    }

    /** remora.transport (jrmp is the agent's business: it installs no router then). */
    public RouterOptions transport(Transport t) {
        transport = t == null ? Transport.AUTO : t;
        return this;
    }

    /** remora.native: false never loads the native library (the fabric technology is then unavailable). */
    public RouterOptions nativeEnabled(boolean on) {
        nativeEnabled = on;
        return this;
    }

    /** remora.fabric.provider: "auto", or a libfabric provider (shm, tcp, verbs, efa, or a full name). */
    public RouterOptions fabricProvider(String provider) {
        fabricProvider = provider == null || provider.isBlank() ? "auto" : provider.trim();
        return this;
    }

    /**
     * The fabric endpoints' options (remora.fabric.spin, remora.fabric.spin.max, remora.fabric.ring, and what the
     * fabric module defaults), handed down unchanged to every endpoint.
     */
    public RouterOptions fabric(FabricOptions options) {
        fabric = options == null ? FabricOptions.defaults() : options;
        return this;
    }

    public FabricOptions fabric() {
        return fabric;
    }

    /**
     * remora.connect.early: a client opens its connection to a server (the probe included) on a background thread as
     * soon as a stub for one of the server's objects arrives in a result (not in a served call's arguments), rather
     * than in the first call (default true).
     */
    public RouterOptions connectEarly(boolean on) {
        connectEarly = on;
        return this;
    }

    /**
     * remora.tracing: when OpenTelemetry's Java agent runs in the JVM, calls carry its trace context, as that agent
     * carries it with JRMP's calls, and a server hands it to the agent before the method runs (default true).
     */
    public RouterOptions tracing(boolean on) {
        tracing = on;
        return this;
    }

    /** Whether the router starts probing libfabric in the background as it is made (default true). */
    public RouterOptions fabricPrewarm(boolean on) {
        fabricPrewarm = on;
        return this;
    }

    /**
     * remora.fabric.upgrade: with remora.transport=auto, libfabric is loaded only once a connection has carried
     * enough calls, which go over sockets until then and move to fabric once it is up; false ({@code on} false):
     * libfabric loads as the router is made and the first connection waits for it. {@code anyPace}: move a busy
     * connection whatever the pace of its calls (=always); by default one whose calls come further apart stays on
     * sockets. {@code after}: calls a connection carries before its move is first decided (remora.fabric.upgrade.after).
     */
    public RouterOptions fabricUpgrade(boolean on, boolean anyPace, int after) {
        fabricUpgrade = on;
        fabricUpgradeAnyPace = anyPace;
        fabricUpgradeAfter = Math.max(1, after);
        return this;
    }

    /** remora.fabric.shared: over shm, send rings in /dev/shm that the peer maps and reads from (no CMA copy). */
    public RouterOptions fabricShared(boolean shared) {
        fabricShared = shared;
        return this;
    }

    /**
     * remora.fabric.sleep: nanoseconds a fabric receiver without a wait fd (shm) waits idle before it asks its peer to
     * ring before the next frame and sleeps until then; 0 = never (it naps on, costing CPU while idle).
     */
    public RouterOptions fabricSleepNanos(long nanos) {
        fabricSleepNanos = nanos;
        return this;
    }

    /** remora.socket.spin: nanoseconds a socket receiver polls (yielding the CPU) before it blocks in read; 0 = never. */
    public RouterOptions socketSpinNanos(long nanos) {
        socketSpinNanos = Math.max(0, nanos);
        return this;
    }

    /**
     * remora.socket.spin.max: nanoseconds a socket receiver's spin may grow to when its waits have lately lasted
     * longer than remora.socket.spin (twice their length); at or below remora.socket.spin, no adaptation.
     */
    public RouterOptions socketSpinMaxNanos(long nanos) {
        socketSpinMaxNanos = Math.max(0, nanos);
        return this;
    }

    /**
     * remora.socket.unix: a Unix domain socket instead of TCP between two JVMs of one host (the socket transport);
     * {@code dir}, where a server binds them (null: {@code java.io.tmpdir/remora-USER}).
     */
    public RouterOptions socketUnix(boolean on, java.nio.file.Path dir) {
        socketUnix = on;
        socketUnixDir = dir;
        return this;
    }

    /**
     * remora.debug.faults=serializer (tests): the fast serializer fails, as a bug of Remora's would, on every call's
     * arguments, result and exception it writes, to prove that they go by JRMP or JDK serialization instead.
     */
    public RouterOptions faultSerializer(boolean on) {
        faultSerializer = on;
        return this;
    }

    /**
     * remora.debug.faults=send (tests): the JVM's first call frame and first one-way frame fail partway through their
     * send, as a bug of Remora's in the send path would ({@link dev.remora.rmi.transport.SendFaults}), to prove that
     * those calls go by JRMP instead.
     */
    public RouterOptions faultSend(boolean on) {
        faultSend = on;
        return this;
    }

    /** remora.serializer: fast (default; generated serializers, per-connection type cache) or jdk. */
    public RouterOptions serializer(Serializer s) {
        serializer = s == null ? Serializer.FAST : s;
        return this;
    }

    /**
     * remora.serializer.spares: bytes of arrays all connections together may make ahead for the long primitive arrays
     * they keep receiving (dev.remora.serializer.Spares); 0 = none.
     */
    public RouterOptions spareBytes(long bytes) {
        spareBytes = Math.max(0, bytes);
        return this;
    }

    /**
     * Whether a server clears the stack traces of the exceptions it sends; by default JRMP's own
     * {@code sun.rmi.server.suppressStackTraces}, as {@code UnicastServerRef} read it (tests set it here).
     */
    public RouterOptions suppressStackTraces(boolean suppress) {
        suppressStackTraces = suppress;
        return this;
    }

    boolean suppressStackTraces() {
        Boolean s = suppressStackTraces;
        return s != null ? s : RmiInternals.suppressStackTraces();
    }

    /**
     * How long a server keeps the remote objects of a result reachable when the client does not acknowledge it; by
     * default JRMP's own {@code sun.rmi.dgc.ackTimeout} (5 minutes), as {@code DGCAckHandler} read it (tests set it
     * here).
     */
    public RouterOptions dgcAckTimeoutMillis(long ms) {
        dgcAckTimeoutMillis = Math.max(0, ms);
        return this;
    }

    long dgcAckTimeout() {
        return dgcAckTimeoutMillis >= 0 ? dgcAckTimeoutMillis : RmiInternals.dgcAckTimeout();
    }

    /**
     * Read timeout of accepted connections (0: none); by default JRMP's own {@code sun.rmi.transport.tcp.readTimeout}
     * (2 hours), as {@code TCPTransport} read it (tests set it here).
     */
    public RouterOptions readTimeoutMillis(int ms) {
        readTimeoutMillis = Math.max(0, ms);
        return this;
    }

    int readTimeout() {
        return readTimeoutMillis >= 0 ? readTimeoutMillis : Math.max(0, RmiInternals.readTimeout());
    }

    /**
     * How long a client waits for the server's side of a connection handshake (0: forever); by default JRMP's own
     * {@code sun.rmi.transport.tcp.handshakeTimeout} (1 minute), as {@code TCPChannel} read it (tests set it here).
     */
    public RouterOptions handshakeTimeoutMillis(int ms) {
        handshakeTimeoutMillis = Math.max(0, ms);
        return this;
    }

    int handshakeTimeout() {
        return handshakeTimeoutMillis >= 0 ? handshakeTimeoutMillis : Math.max(0, RmiInternals.handshakeTimeout());
    }

    /**
     * remora.async and remora.future: this server's one-way methods and methods returning a future, each a list of
     * {@code pkg.Class#method} or {@code pkg.Class#method(type,...)} entries (malformed entries are ignored; the agent
     * checks them first). Checked at export; a method that cannot be made asynchronous safely stays synchronous.
     */
    public RouterOptions asyncMethods(java.util.List<String> oneway, java.util.List<String> future) {
        async = new AsyncMethods.Declarations(oneway == null ? java.util.List.of() : oneway,
                future == null ? java.util.List.of() : future);
        return this;
    }

    /**
     * remora.async.maxPending: one-way calls a client may have sent on one connection that the server has not yet
     * confirmed (run), and, apart from them, future calls whose reply it has not yet read; the next one waits.
     * Bounds what the server queues for a connection, and how many future calls it runs at once for it.
     */
    public RouterOptions asyncMaxPending(int n) {
        asyncMaxPending = Math.max(1, n);
        return this;
    }

    /**
     * remora.async.batch: one-way calls that follow one another on a connection leave together, in one write or message
     * (within about {@link OnewayBatcher#DELAY_NANOS}, before any other frame, or at {@link OnewayBatcher#BYTES}).
     */
    public RouterOptions asyncBatch(boolean on) {
        asyncBatch = on;
        return this;
    }

    /**
     * With {@link #asyncBatch}: how soon after a connection's previous one-way call a one-way call must come to be held
     * back with it (default {@link OnewayBatcher#DELAY_NANOS}); a later one leaves at once. No property: tests set it
     * long, so that calls made by an uncompiled loop still count as a run.
     */
    public RouterOptions onewayRunGap(long nanos) {
        onewayRunGapNanos = Math.max(0, nanos);
        return this;
    }

    /**
     * remora.stats: count the synchronous calls of methods that could be declared one-way and time their callers'
     * waits, for {@link RemoraRouter#onewayCandidates} (two {@code System.nanoTime()} calls per such call; nothing for
     * other methods).
     */
    public RouterOptions adviseOneway(boolean on) {
        adviseOneway = on;
        return this;
    }

    /**
     * remora.future.batch: future calls issued back to back on a connection leave together, as one-way calls
     * with {@link #asyncBatch}; on the server, replies to future calls that end while others still run leave together.
     */
    public RouterOptions futureBatch(boolean on) {
        futureBatch = on;
        return this;
    }

    /** remora.typecache: types described once per connection (default) or on every call. */
    public RouterOptions typeCache(TypeCacheMode mode) {
        typeCache = mode == null ? TypeCacheMode.CONNECTION : mode;
        return this;
    }
}
