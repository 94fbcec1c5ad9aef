package dev.remora.agent;

import dev.remora.rmi.CallRouter;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.WeakHashMap;

/**
 * Makes an RMI JVM's exit as quick as one without RMI ({@code remora.exit.fast}).
 *
 * <p>When a JVM exits (System.exit, a signal, or its last non-daemon thread ending) HotSpot waits at its final
 * safepoint for every thread that is in native code, up to 300 ms, before it halts. An RMI server always has such
 * threads: each listening port's accept loop, and each accepted connection's handler blocked reading the next call.
 * So every RMI JVM with an exported object took 300 ms longer to exit than a hello world, on JDK 17 and 25 alike,
 * and in a multi-JVM application the ranks that exit one after another paid it each.
 *
 * <p>This hook runs as a system shutdown hook in a slot after the application's hooks (and DeleteOnExit): by then
 * the application has said its last word and the JVM is about to halt. It closes RMI's listening sockets (their
 * accept loops end quietly, as after an unexport), shuts for reading every connection RMI accepted (its handler
 * reads end of stream and closes the connection, as when a client goes away), and has the router wake its own
 * waits (fabric receives and liveness watchers, {@code CallRouter.exiting}). Nothing is written on any socket; the
 * peer sees the connection close as it would a moment later when the process ends. Calls in progress are not
 * touched: a handler still running a remote method replies as usual. It never blocks: closing a socket another
 * thread reads only signals that thread, and the work runs on a thread of its own that the exit waits for 200 ms at
 * most.
 *
 * <p>If java.base's shutdown slots cannot be reached (another agent took them, a future JDK) nothing is registered
 * and the JVM exits as the JDK makes it (said at debug level): an application hook could not be used instead, as it
 * would run beside the application's own hooks, which may still make RMI calls.
 */
final class ExitRelease implements Runnable {
    /** Sockets RMI accepted (JRMP and Remora connections alike), until they are collected. */
    private static final Set<Socket> ACCEPTED = Collections.synchronizedSet(
            Collections.newSetFromMap(new WeakHashMap<Socket, Boolean>()));
    private static volatile boolean installed;

    private final Method allKnownTransports;
    private final Field server;
    private final CallRouter router;
    /** Whether the last {@link #listeningSockets} read RMI's fields by offset (for the debug line). */
    private boolean byOffset;

    private ExitRelease(Method allKnownTransports, Field server, CallRouter router) {
        this.allKnownTransports = allKnownTransports;
        this.server = server;
        this.router = router;
    }

    /** Remembers a socket RMI accepted, once the hook is installed (called once per accepted connection). */
    static void accepted(Socket socket) {
        if (installed) {
            ACCEPTED.add(socket);
        }
    }

    /**
     * Registers the hook; at activation, after {@link Installer#openRmiPackages} (it reads TCPEndpoint's transports).
     * Returns the slot it took, or -1 when it did not register (said at debug level).
     */
    static int install(Instrumentation inst, CallRouter router) {
        try {
            // not initialised here: this runs inside the load of a hooked class, and TCPEndpoint's initialiser
            // could load another one
            Class<?> endpoint = Class.forName("sun.rmi.transport.tcp.TCPEndpoint", false, null);
            Method transports = endpoint.getDeclaredMethod("allKnownTransports");
            transports.setAccessible(true);
            Field server = Class.forName("sun.rmi.transport.tcp.TCPTransport", false, null)
                    .getDeclaredField("server");
            server.setAccessible(true);
            Installer.exportFromJavaBase(inst, "jdk.internal.access");
            ExitRelease hook = new ExitRelease(transports, server, router);
            // java.base uses slots 0 (console), 1 (the application's hooks) and 2 (DeleteOnExit); the last one free
            for (int slot = 9; slot > 2; slot--) {
                try {
                    JavaBaseDirect.registerShutdownHook(slot, hook);
                    installed = true;
                    return slot;
                } catch (InternalError e) {
                    // taken: the next (shutdown started: IllegalStateException, none)
                }
            }
            Log.debug("exit: no free shutdown slot in java.base; the JVM exits as the JDK makes it");
        } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
            Log.debug("exit: not installed (" + e + "); the JVM exits as the JDK makes it");
        }
        return -1;
    }

    /**
     * Does the work on a daemon thread of its own and waits for it at most {@value #WAIT_MILLIS} ms: the exiting thread
     * must never hang here (a lock inside RMI held by a thread that is stuck, say on a name lookup, would otherwise
     * hold up the exit; the JVM then only waits for its native threads as it would without this hook).
     */
    @Override
    public void run() {
        Thread t = new Thread(null, new Runnable() { // a class, not a lambda: nothing spun at exit
            @Override
            public void run() {
                release();
            }
        }, "remora-exit", 0, false);
        t.setDaemon(true);
        t.start();
        try {
            t.join(WAIT_MILLIS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static final long WAIT_MILLIS = 200;

    private void release() {
        long start = System.nanoTime();
        int listeners = 0, connections = 0, links = 0;
        try {
            for (ServerSocket s : listeningSockets()) {
                if (!s.isClosed()) {
                    s.close();
                    listeners++;
                }
            }
        } catch (Throwable t) {
            // the JVM halts next whatever happens here: nothing to report it to
        }
        Socket[] accepted;
        synchronized (ACCEPTED) {
            accepted = ACCEPTED.toArray(new Socket[0]);
        }
        for (Socket s : accepted) {
            try {
                if (!s.isClosed() && !s.isInputShutdown()) {
                    s.shutdownInput();
                    connections++;
                }
            } catch (Throwable t) {
                // closed meanwhile
            }
        }
        try {
            links = router.exiting(); // Remora's own links: fabric receives and liveness watchers, Unix domain sockets
        } catch (Throwable t) {
            // as above
        }
        if (Log.debugEnabled()) {
            Log.debug("exit: closed " + listeners + " listening socket(s), shut " + connections + " connection(s),"
                    + " released " + links + " Remora link(s) in " + (System.nanoTime() - start) / 1000 + " us"
                    + (byOffset ? " (RMI's transports read by offset)" : " (RMI's transports read by reflection)"));
        }
    }

    /**
     * The listening sockets of RMI's transports, as {@code TCPEndpoint.allKnownTransports()} finds the transports.
     * When java.base exports jdk.internal.misc to Remora, its fields are read at their offsets ({@link JdkFields}) the
     * way that method reads them (under the map's lock, the first endpoint of each list): on JDK 18 and later a
     * reflective {@code invoke} and {@code get} build their accessors from method handles at first use, and at exit on
     * JDK 25 the hook's work took 2.5-3.7 ms that way and spun a class, 1.3-2.0 ms by offset (6 runs each of a small
     * RMI program). Without the export, or on a JDK whose fields differ, by reflection. A transport shared by several
     * endpoints gives its socket more than once.
     */
    private List<ServerSocket> listeningSockets() throws ReflectiveOperationException {
        List<ServerSocket> sockets = new ArrayList<>();
        if (Object.class.getModule().isExported("jdk.internal.misc", ExitRelease.class.getModule())) {
            try {
                Class<?> endpoint = allKnownTransports.getDeclaringClass();
                Field local = endpoint.getDeclaredField("localEndpoints");
                long transportAt = JdkFields.offset(endpoint.getDeclaredField("transport"));
                long serverAt = JdkFields.offset(server);
                Map<?, ?> map = (Map<?, ?>) JdkFields.read(JdkFields.staticBase(local), JdkFields.staticOffset(local));
                synchronized (map) {
                    for (Object list : map.values()) {
                        Object transport = JdkFields.read(((List<?>) list).get(0), transportAt);
                        Object s = transport == null ? null : JdkFields.read(transport, serverAt);
                        if (s != null) {
                            sockets.add((ServerSocket) s);
                        }
                    }
                }
                byOffset = true;
                return sockets;
            } catch (ReflectiveOperationException | RuntimeException | LinkageError e) {
                sockets.clear(); // fields that differ from the JDK's we know: by reflection
            }
        }
        for (Object transport : (Collection<?>) allKnownTransports.invoke(null)) {
            ServerSocket s = (ServerSocket) server.get(transport);
            if (s != null) {
                sockets.add(s);
            }
        }
        return sockets;
    }
}
