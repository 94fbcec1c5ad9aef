package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Threads as JRMP has them, whatever remora.dispatch says. JRMP serves each connection on one server thread and hands a
 * calling thread the connection freed last, so: a client thread that calls alone keeps its server thread for as long
 * as it keeps calling (the pattern of a load-testing tool's remote engine: the controller configures the engine, a call
 * that takes a while, and every later call checks it runs on the thread that was configured and finds that thread's
 * ThreadLocal state); client threads that take turns share one server thread; client threads that call at once run at
 * once, each on its own. Several client threads calling at once keep no server thread of their own in JRMP: four
 * threads running the session below at once over plain RMI had 89 to 114 of their 160 calls served on a thread other
 * than the one they configured (JDK 17, three runs), so no application can count on it and Remora does not promise it.
 */
class ThreadAffinityTest {
    /** A remote engine with thread-confined state, one per client (named by the client). */
    public interface Engine extends Remote {
        /** Makes the calling server thread the owner of {@code client}'s state; takes {@code millis}. */
        String configure(String client, int millis) throws RemoteException;

        /** Null if the call runs on the owner with the owner's ThreadLocal, else what went wrong. */
        String check(String client, int millis) throws RemoteException;

        /** Waits for the gate: a call that blocks. */
        String block() throws RemoteException;

        /** Waits until the meeting's other parties are in their calls too; the serving thread's name. */
        String meet() throws RemoteException;
    }

    static final class EngineImpl implements Engine {
        final Map<String, Thread> owners = new ConcurrentHashMap<>();
        final ThreadLocal<String> configured = new ThreadLocal<>();
        final CountDownLatch gate = new CountDownLatch(1);
        final CountDownLatch blocked = new CountDownLatch(1);
        volatile java.util.concurrent.CyclicBarrier meeting;

        @Override
        public String configure(String client, int millis) {
            owners.put(client, Thread.currentThread());
            configured.set(client);
            nap(millis);
            return Thread.currentThread().getName();
        }

        @Override
        public String check(String client, int millis) {
            nap(millis);
            Thread owner = owners.get(client);
            if (owner != Thread.currentThread()) {
                return client + ": configured on " + (owner == null ? null : owner.getName()) + ", called on "
                        + Thread.currentThread().getName();
            }
            if (!client.equals(configured.get())) {
                return client + ": ThreadLocal holds " + configured.get();
            }
            return null;
        }

        @Override
        public String block() {
            blocked.countDown();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return Thread.currentThread().getName();
        }

        @Override
        public String meet() {
            try {
                meeting.await(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                return "no meeting: " + e;
            }
            return Thread.currentThread().getName();
        }

        private static void nap(int millis) {
            if (millis > 0) {
                try {
                    Thread.sleep(millis);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        }
    }

    private static Method m(String name) throws NoSuchMethodException {
        for (Method m : Engine.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new NoSuchMethodException(name);
    }

    /** A client thread's task: one call, its result; whatever the call threw fails the test. */
    private static Callable<Object> calling(Rig rig, Object ref, String method, Object... args) {
        return () -> {
            try {
                return rig.result(ref, m(method), args);
            } catch (Throwable e) {
                throw new AssertionError(e);
            }
        };
    }

    /** A hand-off time (auto) far shorter than the configure call: the reader always hands off during it. */
    private static Rig rig(RouterOptions.Dispatch d) throws Exception {
        return new Rig(Rig.options(Serializer.FAST), Rig.options(Serializer.FAST).dispatch(d).handoffMicros(1000));
    }

    /** One client's session: configure (longer than the hand-off time), then calls short and long, with pauses. */
    private static List<String> session(Rig rig, Object ref, String client, int calls) throws Throwable {
        List<String> wrong = new ArrayList<>();
        rig.result(ref, m("configure"), client, 30);
        for (int i = 0; i < calls; i++) {
            if (i % 5 == 4) {
                Thread.sleep(5); // the client thinks between calls; its server thread waits for it
            }
            String w = (String) rig.result(ref, m("check"), client, i % 7 == 3 ? 10 : 0);
            if (w != null) {
                wrong.add("call " + i + ": " + w);
            }
        }
        return wrong;
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Dispatch.class)
    void oneClientThreadKeepsItsServerThread(RouterOptions.Dispatch d) throws Throwable {
        try (Rig rig = rig(d)) {
            EngineImpl impl = new EngineImpl();
            Object ref = rig.export(impl);
            rig.result(ref, m("check"), "warm-up", 0); // the connection exists before the session starts
            assertEquals(List.of(), session(rig, ref, "controller", 60));
            if (d == RouterOptions.Dispatch.AUTO) {
                // configure outlasted the hand-off time; the client thread's server thread then took reading back
                // with its next call, so its later long calls (10 ms) were handed off again, on that same thread
                assertTrue(rig.handoffs.get() >= 1, "configure outlasted the hand-off time");
            }
        }
    }

    /**
     * A thread pool whose threads take turns calling (each call returns before the next starts, from whichever pool
     * thread is free): as over JRMP, where they all take the one connection freed last, every call runs on one server
     * thread, and no call crosses from a reading thread to another.
     */
    @ParameterizedTest
    @EnumSource(RouterOptions.Dispatch.class)
    void clientThreadsThatTakeTurnsShareOneServerThread(RouterOptions.Dispatch d) throws Throwable {
        // short calls and a hand-off time far beyond any scheduling stall: the fresh-clone CI once saw a hand-off
        // with the 1 ms one (a first call outlasted it), which is the watchdog's business, not this contract's
        try (Rig rig = new Rig(Rig.options(Serializer.FAST),
                Rig.options(Serializer.FAST).dispatch(d).handoffMicros(5_000_000))) {
            EngineImpl impl = new EngineImpl();
            Object ref = rig.export(impl);
            ExecutorService clients = Executors.newFixedThreadPool(3);
            try {
                java.util.Set<String> clientThreads = ConcurrentHashMap.newKeySet();
                java.util.Set<String> serverThreads = ConcurrentHashMap.newKeySet();
                for (int i = 0; i < 60; i++) {
                    String client = "turn-" + i;
                    Callable<Object> configure = calling(rig, ref, "configure", client, 0);
                    clients.submit(() -> {
                        clientThreads.add(Thread.currentThread().getName());
                        return serverThreads.add((String) configure.call());
                    }).get(30, TimeUnit.SECONDS);
                }
                assertEquals(3, clientThreads.size(), "the pool's three threads called in turn");
                assertEquals(1, serverThreads.size(), "server threads: " + serverThreads);
                assertEquals(0, rig.handoffs.get());
            } finally {
                clients.shutdownNow();
            }
        }
    }

    /** Client threads calling at once run at once, each on a server thread of its own: AUTO and POOL (inline: one). */
    @ParameterizedTest
    @EnumSource(value = RouterOptions.Dispatch.class, names = {"AUTO", "POOL"})
    void clientThreadsCallingAtOnceRunAtOnce(RouterOptions.Dispatch d) throws Throwable {
        try (Rig rig = rig(d)) {
            EngineImpl impl = new EngineImpl();
            Object ref = rig.export(impl);
            rig.result(ref, m("check"), "warm-up", 0);
            ExecutorService clients = Executors.newFixedThreadPool(4);
            try {
                for (int round = 0; round < 3; round++) {
                    java.util.concurrent.CyclicBarrier all = new java.util.concurrent.CyclicBarrier(4);
                    impl.meeting = all;
                    List<Future<Object>> fs = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        fs.add(clients.submit(calling(rig, ref, "meet")));
                    }
                    java.util.Set<Object> servers = new java.util.HashSet<>();
                    for (Future<Object> f : fs) {
                        Object served = f.get(60, TimeUnit.SECONDS); // the barrier breaks after 20 s if a call waits
                        assertFalse(((String) served).startsWith("no meeting"), "round " + round + ": " + served);
                        servers.add(served);
                    }
                    assertEquals(4, servers.size(), "round " + round + ": " + servers);
                }
            } finally {
                clients.shutdownNow();
            }
        }
    }

    @ParameterizedTest
    @EnumSource(value = RouterOptions.Dispatch.class, names = {"AUTO", "POOL"})
    void otherClientThreadsRunWhileOneBlocks(RouterOptions.Dispatch d) throws Throwable {
        try (Rig rig = rig(d)) {
            EngineImpl impl = new EngineImpl();
            Object ref = rig.export(impl);
            ExecutorService blocker = Executors.newSingleThreadExecutor();
            try {
                rig.result(ref, m("check"), "warm-up", 0);
                Future<Object> blocked = blocker.submit(calling(rig, ref, "block"));
                assertTrue(impl.blocked.await(10, TimeUnit.SECONDS));
                assertEquals(List.of(), session(rig, ref, "other", 20), "served while another client thread blocks");
                assertFalse(blocked.isDone());
                impl.gate.countDown();
                String blockedOn = (String) blocked.get(10, TimeUnit.SECONDS);
                // the blocking client thread's next call comes to the thread that served its blocked one
                assertEquals(blockedOn,
                        blocker.submit(calling(rig, ref, "configure", "blocker", 0)).get(10, TimeUnit.SECONDS));
            } finally {
                blocker.shutdownNow();
            }
        }
    }
}
