package dev.remora.agent;

import dev.remora.agent.config.Property;
import dev.remora.agent.config.RemoraConfig;
import dev.remora.agent.hooks.HookPoint;
import dev.remora.agent.stats.Stats;
import dev.remora.rmi.CallRouter;
import java.io.IOException;
import java.lang.instrument.Instrumentation;
import java.lang.reflect.Method;
import java.net.Socket;

/**
 * The router the hooks call, made when they first do: an export, an accepted JRMP connection or a client call. Until
 * then no class of rmi-shim, the serializer or the transports is loaded, no native library and no thread, so a JVM
 * that never uses RMI pays for none of them. The first hook call pays for them once (the router's constructor is
 * cheap: it touches no RMI class and starts nothing), and enables native access for the fabric library first (JDK 22+;
 * reading the command line for that loaded 30 classes and cost 8 ms at premain).
 */
final class LazyRouter implements CallRouter {
    private final Instrumentation inst;
    private final RemoraConfig config;
    private final Stats stats;
    private volatile CallRouter router;
    /**
     * {@link #stubsArrived} before the router was made: {endpoint, refs} pairs handed to it once made. Guarded by
     * this; null once the router is made.
     */
    private java.util.List<Object[]> early = new java.util.ArrayList<>();

    LazyRouter(Instrumentation inst, RemoraConfig config, Stats stats) {
        this.inst = inst;
        this.config = config;
        this.stats = stats;
    }

    /**
     * Makes the router on a daemon thread of its own, now: called once a hooked RMI class has been woven, i.e. when the
     * application has started to use RMI (a registry stub, an export), so that the router's classes load and the
     * fabric probe (libfabric's initialisation, about 300 ms here) runs while the application is still looking up its
     * first remote object, rather than inside its first call. The first hook call still makes it if it is not ready.
     * Then the same thread loads the classes of the first calls ({@link Preload}, remora.preload).
     */
    void makeSoon() {
        Thread t = new Thread(null, new Runnable() { // a class, not a lambda: nothing spun at start
            @Override
            public void run() {
                try {
                    CallRouter r = router();
                    if (r != CallRouter.JRMP && config.flag(Property.CONNECT_EARLY)) {
                        // loaded (and so woven) now, not at the first stub: the class-load transformer waits for
                        // it, and a JVM that serves but receives no stub would keep it registered for good
                        Class.forName(HookPoint.DGC_CLIENT, false, null);
                    }
                    if (r != CallRouter.JRMP && config.flag(Property.PRELOAD)) {
                        Preload.run();
                    }
                } catch (Throwable e) {
                    Log.debug("router not made in advance (the first call makes it): " + e);
                }
            }
        }, "remora-router-start", 0, false);
        t.setDaemon(true);
        t.setContextClassLoader(null);
        t.start();
    }

    private CallRouter router() {
        CallRouter r = router;
        if (r == null) {
            java.util.List<Object[]> arrived;
            synchronized (this) {
                r = router;
                if (r != null) {
                    return r;
                }
                long start = System.nanoTime();
                Installer.enableNativeAccess(inst, config);
                r = Installer.router(config, stats);
                router = r;
                arrived = early;
                early = null;
                Log.debug("router made in " + (System.nanoTime() - start) / 1_000_000 + " ms");
            }
            for (Object[] a : arrived) {
                r.stubsArrived(a[0], (java.util.List<?>) a[1]);
            }
        }
        return r;
    }

    /**
     * Handed to the router when it is made, not made here: the thread that unmarshalled the stub is inside the
     * application's call (a registry lookup), which would wait for the router's making.
     */
    @Override
    public void stubsArrived(Object endpoint, java.util.List<?> liveRefs) {
        CallRouter r = router;
        if (r == null) {
            synchronized (this) {
                r = router;
                if (r == null) {
                    if (early.size() < 64) { // a copy: the router reads it later, on another thread
                        early.add(new Object[] {endpoint, new java.util.ArrayList<Object>(liveRefs)});
                    }
                    return;
                }
            }
        }
        r.stubsArrived(endpoint, liveRefs);
    }

    @Override
    public Object[] invoke(Object unicastRef, Object proxy, Method method, Object[] args, long hash)
            throws Exception {
        return router().invoke(unicastRef, proxy, method, args, hash);
    }

    @Override
    public java.util.concurrent.CompletableFuture<Object> async(java.util.concurrent.Callable<?> task) {
        return router().async(task);
    }

    @Override
    public void exported(Object unicastServerRef, Object impl, Object stub) {
        router().exported(unicastServerRef, impl, stub);
    }

    @Override
    public int exiting() {
        CallRouter r = router;
        return r == null ? 0 : r.exiting(); // not made: no connection to release
    }

    @Override
    public Socket accept(Object connectionHandler, Socket socket) throws IOException {
        ExitRelease.accepted(socket);
        return router().accept(connectionHandler, socket);
    }
}
