package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.jdk.SystemThreads;
import dev.remora.rmi.transport.Link;
import dev.remora.rmi.transport.Technology;
import dev.remora.rmi.transport.fabric.FabricLink;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.DataInputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;

/**
 * What this JVM knows of one server endpoint (a LiveRef's host:port): not asked yet, runs Remora (with the
 * connection all threads share), or plain JRMP (cached: calls go to the JDK).
 *
 * <p>The probe is the first connection: Remora's hello on the JRMP port. A Remora server answers with its own hello;
 * a JRMP server reads six bytes, finds the wrong magic and closes, and the client remembers "vanilla". A server
 * that does neither within the probe timeout (or JRMP's handshake timeout,
 * {@code sun.rmi.transport.tcp.handshakeTimeout}, when shorter) is also taken for vanilla, so a call never hangs on
 * the probe.
 */
final class RemoteEndpoint {
    final String host;
    final int port;
    private final RouterOptions options;
    private final Technology[] technologies;
    private volatile boolean vanilla;
    private volatile ClientConnection connection;
    /** Why one-way calls of a connection that broke were not confirmed: thrown by the next call (once). */
    private volatile IOException unconfirmed;
    /**
     * remora.fabric.upgrade: the technology left out of the current connection's hello because it was still starting
     * (libfabric), to move to once it is up; null when there is none to move to.
     */
    private volatile Technology deferred;
    /**
     * The current connection's call count at which the move is decided next: first remora.fabric.upgrade.after
     * (default 65536), so that a JVM pair whose connection carries fewer calls never pays the move (about 0.5 s,
     * docs/startup.md), and a fresh pair's first 2000 calls (the compare's "cold" figure) are not slowed by it.
     */
    private volatile int upgradeAt;
    private int upgradeTries;
    private volatile boolean upgrading;
    /**
     * While a move is pending: the connection's call count where the current window began, and how many calls of the
     * window came back to back (plain fields written by every calling thread: a heuristic, a lost update does not
     * matter).
     */
    private int windowCalls;
    private int closeCalls;
    /** remora.connections: the spares not in a call, the one freed last at the end, and when each was freed. */
    private final Object spareLock = new Object();
    private ClientConnection[] spares = new ClientConnection[4]; // guarded by spareLock
    private long[] freedAt = new long[4]; // guarded by spareLock
    private int freeSpares; // guarded by spareLock
    /** Spares open, free or in a call (the endpoint's connection not counted). */
    private int sparesOpen; // guarded by spareLock
    /** When a spare last failed to open; none is tried again for {@link #SPARE_RETRY_NANOS}. */
    private long spareRefusedAt = System.nanoTime() - SPARE_RETRY_NANOS; // guarded by spareLock
    private static final long SPARE_RETRY_NANOS = 1_000_000_000L;
    private boolean reaping; // guarded by spareLock: the reaper thread runs

    /**
     * A call comes back to back when its thread made it at most this long after its previous call to the same endpoint
     * returned, that call having taken at most {@link #UPGRADE_MAX_CALL_NANOS}; or when its thread made it while
     * serving a call (a callback, which its own caller waits for). The move is made only for a connection most of
     * whose calls since the last decision came back to back (remora.fabric.upgrade=true; =always moves whatever the
     * pace).
     */
    private static final long UPGRADE_MAX_THINK_NANOS = 10_000;
    /**
     * Calls that take longer (the server computes) gain too little from fabric's few microseconds to pay for the move:
     * libfabric's start and a second compilation of the call path, about 1 s of CPU per JVM here.
     */
    private static final long UPGRADE_MAX_CALL_NANOS = 100_000;
    /**
     * Decisions at most (the server's libfabric may still be starting too), each after as many calls again as the
     * connection had carried: at remora.fabric.upgrade.after calls, and at twice, four and eight times as many.
     */
    static final int UPGRADE_TRIES = 4;

    RemoteEndpoint(String host, int port, RouterOptions options, Technology[] technologies) {
        this.host = host;
        this.port = port;
        this.upgradeAt = options == null ? Integer.MAX_VALUE : options.fabricUpgradeAfter;
        this.options = options;
        this.technologies = technologies;
    }

    boolean isVanilla() {
        return vanilla;
    }

    /**
     * The shared connection, opened (and the endpoint probed) if needed.
     *
     * @return null when the call must go to JRMP: a vanilla endpoint, or no connection could be made (JRMP then
     *     reports that failure exactly as it would without Remora)
     */
    ClientConnection connection() {
        ClientConnection c = connection;
        if (c != null && c.usable()) {
            return c;
        }
        if (vanilla) {
            return null;
        }
        synchronized (this) {
            c = connection;
            if (c != null && c.usable()) {
                return c;
            }
            if (c != null) {
                IOException u = c.takeUnconfirmed();
                if (u != null) {
                    unconfirmed = u;
                }
            }
            connection = null;
            if (vanilla) {
                return null;
            }
            c = open("");
            connection = c;
            return c;
        }
    }

    /**
     * remora.connect.early: opens the shared connection (probing the endpoint) ahead of the first call, unless one is
     * open, the endpoint is known to be JRMP's, or another thread is opening it (then this waits for it). A call made
     * meanwhile waits for this one's connection rather than open a second.
     *
     * @return the connection opened, or null (none opened here)
     */
    ClientConnection openEarly() {
        if (connection != null || vanilla) {
            return null;
        }
        synchronized (this) {
            if (connection == null && !vanilla) {
                connection = open(EARLY);
                return connection;
            }
        }
        return null;
    }

    /**
     * Closes {@code early}, a connection {@link #openEarly} opened, if it is still this endpoint's and has carried no
     * call: JRMP closes its DGC's connection to a server once it is idle for {@code sun.rmi.transport.connectionTimeout}
     * too, and a client that looks up many servers and calls few would otherwise hold a connection (and a server
     * thread) to each. The next call opens a new one. A call that took {@code early} just before this closed it goes
     * by JRMP, unsent on {@code early}, as one that took a connection being replaced does
     * ({@link ClientConnection#closeIfNeverUsed}).
     *
     * @return whether it was closed
     */
    boolean closeIfNeverCalled(ClientConnection early, long idleMillis) {
        String m = "Remora connection to " + host + ":" + port + " closed: opened as a stub for it arrived, it carried"
                + " no call in " + idleMillis + " ms (sun.rmi.transport.connectionTimeout; the next call opens"
                + " another; remora.connect.early)";
        synchronized (this) {
            if (connection != early || !early.closeIfNeverUsed(new ClientConnection.Retired(m))) {
                return false;
            }
            connection = null;
            deferred = null;
        }
        options.listener.debug(m);
        return true;
    }

    private static final String EARLY = " (opened as a stub for it arrived, before the first call; remora.connect.early)";

    /**
     * remora.fabric.upgrade: once {@code c} has carried remora.fabric.upgrade.after calls, the deferred technology is
     * loaded in the background; once it is up, a daemon thread opens a connection over it and makes it the endpoint's;
     * calls go on over {@code c} meanwhile (opening a fabric link took up to 200 ms here), and those in flight on it
     * end there when it is retired. Not for a connection whose server declared one-way methods (a thread's later call
     * on the new connection could overtake its one-way calls on the old one). A failed move leaves {@code c} in use.
     *
     * @param caller the calling thread's, whose previous call to this endpoint tells whether this one came back to
     *     back ({@link #UPGRADE_MAX_THINK_NANOS}); {@link #returned} notes its return
     * @return {@code c}, always: the move takes effect for later calls
     */
    ClientConnection upgraded(ClientConnection c, PendingCall caller) {
        Technology t = deferred;
        if (t == null || upgrading) {
            return c;
        }
        long now = System.nanoTime();
        if (caller.returnedFrom == this && now - caller.returnedAt < UPGRADE_MAX_THINK_NANOS
                && caller.returnedAt - caller.calledAt < UPGRADE_MAX_CALL_NANOS || RmiInternals.servingCall()) {
            closeCalls++;
        }
        caller.calledAt = now;
        int calls = c.callsMade();
        if (calls < upgradeAt) {
            return c;
        }
        if (2 * closeCalls < calls - windowCalls && !options.fabricUpgradeAnyPace) {
            // The application computes between most calls, or its calls take long. There the move has not paid here
            // (docs/waiting.md): the papers' apps with 4 ranks on 2 CPUs had compute phases 0.79 of plain RMI's on
            // sockets and 0.91 after the move (sor), 1.01 against 1.11 (hamming); a long SOR run with 2 ranks, its
            // ranks computing 10-20 us between calls, took 1.1-1.4x plain RMI's compute phase after the move, which
            // made the JIT compile the call path again. Not now, then: asked again after as many calls again.
            synchronized (this) {
                int close = closeCalls;
                int window = calls - windowCalls;
                closeCalls = 0;
                windowCalls = calls;
                if (postponeMove(calls)) {
                    options.listener.debug("Remora connection to " + host + ":" + port + " stays on its socket"
                            + " transport: only " + close + " of its last " + window + " calls came back to back"
                            + " (within " + UPGRADE_MAX_THINK_NANOS / 1000 + " us of their thread's previous call's"
                            + " return, which took less than " + UPGRADE_MAX_CALL_NANOS / 1000 + " us;"
                            + " remora.fabric.upgrade)");
                }
            }
            return c;
        }
        if (!t.ready()) {
            t.prewarm(); // a busy connection: load libfabric now, in the background; the move comes once it is up
            return c;
        }
        synchronized (this) {
            if (deferred == null || upgrading || connection != c) {
                return c;
            }
            if (c.learnedAsync() || !t.available()) {
                deferred = null; // keeps its connection: one-way order, or no libfabric after all
                return c;
            }
            upgrading = true;
        }
        try {
            SystemThreads.newThread(() -> move(c, t), "remora-upgrade", true).start();
        } catch (RuntimeException | Error e) {
            synchronized (this) {
                upgrading = false;
                deferred = null;
            }
        }
        return c;
    }

    /** Whether a call should tell {@link #upgraded} its pace: a move is pending and not under way. */
    boolean movePending() {
        return deferred != null && !upgrading;
    }

    /** A synchronous call that {@link #upgraded} was told of returned (on {@code caller}'s thread). */
    void returned(PendingCall caller) {
        caller.returnedAt = System.nanoTime();
        caller.returnedFrom = this;
    }

    /**
     * The move is decided again at twice {@code calls}, or never once it was decided {@link #UPGRADE_TRIES} times
     * (then true). Under this lock.
     */
    private boolean postponeMove(int calls) {
        upgradeAt = (int) Math.min(Integer.MAX_VALUE, 2L * Math.max(calls, options.fabricUpgradeAfter / 2));
        if (++upgradeTries >= UPGRADE_TRIES) {
            deferred = null;
            return true;
        }
        return false;
    }

    private void move(ClientConnection c, Technology t) {
        ClientConnection n = upgrade(t);
        synchronized (this) {
            upgrading = false;
            if (n == null) {
                postponeMove(c.callsMade());
                return;
            }
            if (connection != c || c.learnedAsync()) { // c broke meanwhile, or learnt one-way methods: n unused
                deferred = null;
                n.retire();
                return;
            }
            deferred = null;
            connection = n;
            c.retire();
        }
        options.listener.upgraded("Remora connection to " + host + ":" + port + " moved to " + t.name() + " after "
                + c.callsMade() + " calls over its socket transport (remora.fabric.upgrade)");
    }

    /** A second connection that offers {@code t}: null unless the server chose it (then closed at once). */
    private ClientConnection upgrade(Technology t) {
        return another(t.bit(), ", replacing its socket connection", "moving the connection to " + host + ":" + port
                + " to " + t.name() + " failed, it stays on its socket");
    }

    /**
     * Another connection to this endpoint offering those of the technologies {@code offered} worth offering to it:
     * null unless the server chose one (then closed at once); {@code how} ends the line that tells the listener of
     * it, {@code failed} the debug line of a failure.
     */
    private ClientConnection another(int offered, String how, String failed) {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), options.connectTimeoutMillis);
            s.setSoTimeout(helloWaitMillis());
            for (Technology t : technologies) {
                if ((offered & t.bit()) != 0 && !t.worthOffering(s)) {
                    offered &= ~t.bit();
                }
            }
            byte[] answer = hello(s, offered);
            if (FrameBuffer.getInt(answer, 0) != Frame.MAGIC || FrameBuffer.getShort(answer, 4) != Frame.VERSION) {
                throw new IOException("unexpected answer to the hello");
            }
            for (Technology t : technologies) {
                if (answer[6] == t.bit() && (offered & t.bit()) != 0) {
                    return connect(t, s, how);
                }
            }
            close(s);
            return null;
        } catch (IOException | RuntimeException e) {
            close(s);
            options.listener.debug(failed + ": " + e);
            return null;
        }
    }

    /**
     * A connection for a synchronous call made while every lane of {@code shared}, the endpoint's connection, is in a
     * call (remora.connections): one given back earlier, the one freed last, else a new one. JRMP opens a connection
     * per concurrent call and its server thread runs the calls that come on it; over one shared connection those
     * calls were read by one thread and handed to others, a thread switch each (four client threads of null calls:
     * 20-30 k calls a second against JRMP's 25-34 k). Null when there is none to be had: {@code shared} moved to
     * fabric (which carries concurrent calls well), remora.connections reached, or no connection could be opened
     * (then the call takes a new lane on {@code shared}, as before).
     */
    ClientConnection spare(ClientConnection shared) {
        if (options.connections <= 1 || shared.link instanceof FabricLink) {
            return null;
        }
        long now = System.nanoTime();
        synchronized (spareLock) {
            while (freeSpares > 0) {
                ClientConnection x = spares[--freeSpares];
                spares[freeSpares] = null;
                if (x.usable()) {
                    return x;
                }
                sparesOpen--;
                x.fail(new ClientConnection.Retired("Remora connection to " + host + ":" + port + " was closed"));
            }
            if (sparesOpen + 1 >= options.connections || now - spareRefusedAt < SPARE_RETRY_NANOS) {
                return null;
            }
            sparesOpen++;
            if (!reaping) {
                reaping = true;
                startReaper();
            }
        }
        int offered = 0; // the socket technology, and a Unix domain socket where the first connection may have one
        for (Technology t : technologies) {
            if (t.bit() == Frame.TECH_SOCKET || t.bit() == Frame.TECH_UNIX) {
                offered |= t.bit();
            }
        }
        ClientConnection x = another(offered, " for concurrent calls", "another connection to " + host + ":" + port
                + " for concurrent calls failed, they share the first");
        if (x == null) {
            synchronized (spareLock) {
                sparesOpen--;
                spareRefusedAt = System.nanoTime(); // not again at once: each try costs a connect and a hello
            }
        }
        return x;
    }

    /** {@code x}, from {@link #spare}, is free again (closed, if it broke meanwhile). */
    void giveBack(ClientConnection x) {
        synchronized (spareLock) {
            if (x.isDead()) {
                sparesOpen--;
                return;
            }
            if (freeSpares == spares.length) {
                spares = java.util.Arrays.copyOf(spares, freeSpares * 2);
                freedAt = java.util.Arrays.copyOf(freedAt, freeSpares * 2);
            }
            spares[freeSpares] = x;
            freedAt[freeSpares++] = System.nanoTime();
        }
    }

    /**
     * While spares are open, a daemon thread closes those unused for JRMP's client connection timeout
     * ({@code sun.rmi.transport.connectionTimeout}, 15 s), as JRMP's channel closes its idle connections; it ends
     * with the last spare and is started again with the next.
     */
    private void startReaper() {
        final long idleNanos = java.util.concurrent.TimeUnit.MILLISECONDS.toNanos(options.laneIdle());
        Runnable reaper = new Runnable() { // a class, not a lambda: nothing spun
            @Override
            public void run() {
                for (;;) {
                    java.util.concurrent.locks.LockSupport.parkNanos(Math.max(1_000_000L, idleNanos / 2));
                    ClientConnection[] idle = null;
                    synchronized (spareLock) {
                        long now = System.nanoTime();
                        int old = 0; // the stack's bottom holds those freed first
                        while (old < freeSpares && now - freedAt[old] > idleNanos) {
                            old++;
                        }
                        if (old > 0) {
                            idle = java.util.Arrays.copyOf(spares, old);
                            System.arraycopy(spares, old, spares, 0, freeSpares - old);
                            System.arraycopy(freedAt, old, freedAt, 0, freeSpares - old);
                            java.util.Arrays.fill(spares, freeSpares - old, freeSpares, null);
                            freeSpares -= old;
                            sparesOpen -= old;
                        }
                    }
                    if (idle != null) {
                        for (ClientConnection c : idle) {
                            c.fail(new ClientConnection.Retired("Remora connection to " + host + ":" + port
                                    + " closed after " + options.laneIdle() + " ms unused"));
                        }
                    }
                    synchronized (spareLock) {
                        if (sparesOpen == 0) {
                            reaping = false;
                            return;
                        }
                    }
                }
            }
        };
        try {
            SystemThreads.newThread(reaper, "remora-spares", true).start();
        } catch (RuntimeException | Error e) {
            synchronized (spareLock) {
                reaping = false; // no thread: idle spares stay open until the server closes them
            }
        }
    }

    /** How long the client waits for the answer to its hello: as JRMP's client, no longer than its handshake. */
    private int helloWaitMillis() {
        int handshake = options.handshakeTimeout();
        return handshake > 0 ? Math.min(options.probeTimeoutMillis, handshake) : options.probeTimeoutMillis;
    }

    /** Sends the hello offering the technologies {@code offered}; returns the server's answer. */
    private static byte[] hello(Socket s, int offered) throws IOException {
        FrameBuffer hello = Frame.hello(offered);
        s.getOutputStream().write(hello.array(), 0, hello.length());
        byte[] answer = new byte[Frame.HELLO_LENGTH];
        new DataInputStream(s.getInputStream()).readFully(answer);
        return answer;
    }

    /** The connection over technology {@code t} on the negotiated socket {@code s}, told to the listener. */
    private ClientConnection connect(Technology t, Socket s, String how) throws IOException {
        Link link = t.open(s, true);
        options.listener.linked(Technology.kind(link), "Remora connection to " + link.peer() + " over "
                + Technology.describe(link) + how);
        return new ClientConnection(link, options);
    }

    /**
     * Once: why one-way calls sent to this endpoint on a connection that broke were not confirmed, or null. Asked
     * by every call after {@link #connection}, which notices the broken connection.
     */
    IOException takeUnconfirmed() {
        if (unconfirmed == null) {
            return null;
        }
        synchronized (this) {
            IOException u = unconfirmed;
            unconfirmed = null;
            return u;
        }
    }

    /** @param how said after the connection's description when it is made (usually empty) */
    private ClientConnection open(String how) {
        Socket s = new Socket();
        try {
            s.setTcpNoDelay(true);
            s.connect(new InetSocketAddress(host, port), options.connectTimeoutMillis);
        } catch (IOException e) {
            close(s);
            return null; // unreachable: JRMP makes the call and reports it in its own words
        }
        int wait = helloWaitMillis(); // the hello is this connection's handshake
        try {
            s.setSoTimeout(wait);
            int offered = 0;
            Technology later = null;
            for (Technology t : technologies) {
                if (!t.worthOffering(s)) {
                    continue;
                }
                if (RemoraRouter.upgrades(options) && !t.ready()) {
                    later = t; // not loaded (or still starting): this connection goes without it, may move later
                    continue;
                }
                if (t.available()) {
                    offered |= t.bit();
                }
            }
            deferred = later;
            upgradeAt = options.fabricUpgradeAfter;
            upgradeTries = 0;
            windowCalls = 0;
            closeCalls = 0;
            byte[] answer = hello(s, offered);
            int chosen = answer[6];
            if (FrameBuffer.getInt(answer, 0) != Frame.MAGIC) {
                return vanilla(s, "answered the hello with something else");
            }
            short version = FrameBuffer.getShort(answer, 4);
            if (version != Frame.VERSION) {
                return vanilla(s, "speaks Remora protocol version " + version + ", this JVM version " + Frame.VERSION
                        + " (different Remora releases); run the same Remora on both sides to leave JRMP");
            }
            for (Technology t : technologies) {
                if (t.bit() == chosen) {
                    return connect(t, s, how);
                }
            }
            return vanilla(s, "chose a technology this JVM does not have (" + chosen + ")");
        } catch (SocketTimeoutException e) {
            return vanilla(s, "did not answer Remora's hello within " + wait + " ms");
        } catch (IOException e) {
            return vanilla(s, null); // closed on the hello: a JRMP server
        }
    }

    private ClientConnection vanilla(Socket s, String oddity) {
        close(s);
        vanilla = true;
        if (oddity != null) {
            options.listener.note("probe:" + host + ":" + port, "the server at " + host + ":" + port + " " + oddity
                    + "; its calls stay on JRMP");
        }
        return null;
    }

    private static void close(Socket s) {
        try {
            s.close();
        } catch (IOException ignored) {
            // nothing to do
        }
    }

    @Override
    public String toString() {
        return host + ":" + port + (vanilla ? " (JRMP)" : "");
    }
}
