package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * remora.connections: a call made while the other client threads' calls hold the connection takes another, whose
 * server thread reads and runs it, as JRMP opens a connection per concurrent call.
 */
class SpareConnectionsTest {

    private static java.lang.reflect.Method m(String name) throws NoSuchMethodException {
        for (java.lang.reflect.Method m : ThreadAffinityTest.Engine.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new NoSuchMethodException(name);
    }

    private static int open(Rig rig) {
        int n = 0;
        for (java.net.Socket s : rig.accepted()) {
            n += s.isClosed() ? 0 : 1;
        }
        return n;
    }

    private static Rig rig(RouterOptions client) throws Exception {
        return new Rig(client, Rig.options(Serializer.FAST));
    }

    /** Four client threads meet inside their calls, {@code rounds} times; the server threads' names, per round. */
    private static List<Set<Object>> meetings(Rig rig, int rounds) throws Throwable {
        ThreadAffinityTest.EngineImpl impl = new ThreadAffinityTest.EngineImpl();
        Object ref = rig.export(impl);
        rig.result(ref, m("check"), "warm-up", 0);
        return meetings(rig, impl, ref, rounds);
    }

    private static List<Set<Object>> meetings(Rig rig, ThreadAffinityTest.EngineImpl impl, Object ref, int rounds)
            throws Throwable {
        List<Set<Object>> served = new ArrayList<>();
        ExecutorService clients = Executors.newFixedThreadPool(4);
        try {
            for (int round = 0; round < rounds; round++) {
                impl.meeting = new CyclicBarrier(4);
                List<Future<Object>> fs = new ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    fs.add(clients.submit(() -> {
                        try {
                            return rig.result(ref, m("meet"));
                        } catch (Throwable e) {
                            throw new AssertionError(e);
                        }
                    }));
                }
                Set<Object> names = new HashSet<>();
                for (Future<Object> f : fs) {
                    Object name = f.get(60, TimeUnit.SECONDS); // the meeting breaks after 20 s if a call waits
                    assertTrue(!((String) name).startsWith("no meeting"), "round " + round + ": " + name);
                    names.add(name);
                }
                served.add(names);
            }
        } finally {
            clients.shutdownNow();
        }
        return served;
    }

    @Test
    void concurrentCallsEachRunOnTheThreadThatReadsTheirConnection() throws Throwable {
        try (Rig rig = rig(Rig.options(Serializer.FAST))) {
            for (Set<Object> names : meetings(rig, 3)) {
                assertEquals(4, names.size(), names.toString());
                for (Object n : names) {
                    assertTrue(((String) n).startsWith("rig-conn"), "a connection's own thread, no pool thread: "
                            + names);
                }
            }
            assertEquals(4, rig.accepted().size(), "the first connection and three more, kept for the later rounds");
        }
    }

    @Test
    void withOneConnectionConcurrentCallsAreLanesOnIt() throws Throwable {
        try (Rig rig = rig(Rig.options(Serializer.FAST).connections(1))) {
            for (Set<Object> names : meetings(rig, 2)) {
                assertEquals(4, names.size(), names.toString());
                assertTrue(names.contains("rig-conn"), "the reader runs one: " + names);
            }
            assertEquals(1, rig.accepted().size());
        }
    }

    @Test
    void beyondTheLimitCallsShareTheConnections() throws Throwable {
        try (Rig rig = rig(Rig.options(Serializer.FAST).connections(2))) {
            for (Set<Object> names : meetings(rig, 2)) {
                assertEquals(4, names.size(), "they still run at once: " + names);
            }
            assertEquals(2, rig.accepted().size());
        }
    }

    @Test
    void unusedSparesAreClosedAndOpenedAgainWhenNeeded() throws Throwable {
        try (Rig rig = rig(Rig.options(Serializer.FAST).laneIdleMillis(200))) {
            ThreadAffinityTest.EngineImpl impl = new ThreadAffinityTest.EngineImpl();
            Object ref = rig.export(impl);
            meetings(rig, impl, ref, 1);
            assertEquals(4, rig.accepted().size());
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (open(rig) > 1 && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertEquals(1, open(rig), "the spares were closed once unused for 200 ms");
            impl.meeting = new CyclicBarrier(1);
            assertEquals("rig-conn", rig.result(ref, m("meet")),
                    "a lone call on the first connection");
            meetings(rig, impl, ref, 1);
            assertEquals(7, rig.accepted().size(), "three spares opened again");
        }
    }
}
