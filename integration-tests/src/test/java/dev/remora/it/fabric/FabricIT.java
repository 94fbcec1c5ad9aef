package dev.remora.it.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcClient;
import dev.remora.it.app.CalcServer;
import dev.remora.it.shim.ShimClient;
import dev.remora.it.shim.ShimServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The fabric technology with real JVMs on JDK 17 and 25, {@code -Dremora.transport=fabric} on both sides: the Calc
 * session prints exactly what plain RMI prints, every client call is on Remora's path, and the debug log shows the
 * connection ran over an shm fabric link; a server killed mid-call fails the pending call promptly (the TCP liveness
 * connection) and the next call reconnects; {@code remora.native=false} warns once and uses the socket
 * technology.
 * Skipped when this machine has no libfabric (the agent's self-check line says so).
 */
class FabricIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";

    private static List<String> agent(String... props) {
        List<String> l = new ArrayList<>();
        l.add(Jvm.javaagent(null));
        l.add("-Dremora.stats=true");
        l.add("-Dremora.transport=fabric");
        l.add("-Dremora.log=debug");
        l.add(LOOPBACK);
        l.addAll(Arrays.asList(props));
        return l;
    }

    private static void assumeFabric(Jdk jdk) throws Exception {
        // -javaagent puts the agent jar on the class path: its self-check says whether libfabric loads
        try (Jvm check = Jvm.start(jdk, List.of(Jvm.javaagent(null)), "dev.remora.agent.SelfCheck")) {
            check.waitFor(60);
            assumeTrue(check.stdout().contains("libfabric: libfabric"), () -> "libfabric unavailable here, FabricIT"
                    + " skipped:\n" + check.describe());
        }
    }

    /** Runs the Calc server and client to completion; returns {client, server}, both finished. */
    private static Jvm[] calc(Jdk jdk, List<String> serverOpts, List<String> clientOpts) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, serverOpts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, CalcClient.class.getName(), String.valueOf(port), "200")) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Jvm[] {client, server};
            }
        }
    }

    static Stream<Arguments> jdksAndUpgradeRules() {
        return Stream.of(Jdk.values()).flatMap(j -> Stream.of(Arguments.of(j, "true"), Arguments.of(j, "always")));
    }

    /** The move's first decision at 2048 calls (the default is 65536), so that these tests run a few seconds. */
    private static final String UPGRADE_AFTER = "-Dremora.fabric.upgrade.after=2048";

    /**
     * remora.transport=auto (the default): libfabric is not loaded for the first connection, which goes over
     * sockets; once it has carried 2048 calls ({@link #UPGRADE_AFTER}) libfabric loads in both JVMs and the connection
     * moves to fabric, with
     * calls from three threads going on throughout; none fails or goes by JRMP. The threads call back to back, so
     * the default rule moves the connection as remora.fabric.upgrade=always does (with the threads' calls on one
     * connection, not always: a call that waited for the others' was not back to back; each now has a connection
     * of its own until the move).
     */
    @ParameterizedTest
    @MethodSource("jdksAndUpgradeRules")
    void aBusyConnectionMovesToFabricOnceLibfabricIsUp(Jdk jdk, String rule) throws Exception {
        assumeFabric(jdk);
        List<String> opts = List.of(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.log=debug", LOOPBACK,
                "-Dremora.fabric.upgrade=" + rule, UPGRADE_AFTER);
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, opts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, opts, UpgradeClient.class.getName(), String.valueOf(port), "6")) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                String out = client.stdout();
                assertTrue(out.startsWith("CALLS "), client::describe);
                long calls = Long.parseLong(out.trim().substring("CALLS ".length()));
                assertEquals(calls, client.stat("calls_remora"), client::describe);
                assertEquals(0, client.stat("calls_jrmp"), client::describe);
                assertEquals(0, client.stat("fallbacks"), client::describe);
                // the first connection, and a spare each for the threads that called while it was in a call
                // (remora.connections), until it moved: from then on they share it as lanes
                long sockets = client.stat("links_unix"); // the socket transport of one host
                assertEquals(0, client.stat("links_socket"), client::describe);
                assertTrue(sockets >= 1 && sockets <= 3, client::describe);
                assertEquals(1, client.stat("links_fabric"), client::describe);
                assertEquals(1, client.stat("links_upgraded"), client::describe);
                assertTrue(client.stderr().contains("moved to fabric after"), client::describe);
            }
        }
    }

    /**
     * The default rule: a connection that carries fewer than 65536 back-to-back calls (here one thread calling for
     * a second, some 30,000 calls on this machine) never loads libfabric, in either JVM, and never moves: the move
     * would cost such a short run more than it wins back (docs/startup.md).
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aShortBusyRunNeverLoadsLibfabric(Jdk jdk) throws Exception {
        assumeFabric(jdk);
        List<String> opts = List.of(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.log=debug", LOOPBACK);
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, opts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, opts, UpgradeClient.class.getName(), String.valueOf(port), "1", "1")) {
                assertEquals(0, client.waitFor(120), () -> client.describe() + "\nserver:\n" + server.describe());
                long calls = Long.parseLong(client.stdout().trim().substring("CALLS ".length()));
                assumeTrue(calls > 4096 && calls < 65536,
                        () -> calls + " calls in a second: this machine cannot tell the default from the old 2048");
                server.stop();
                for (Jvm j : new Jvm[] {client, server}) {
                    assertEquals(0, j.stat("links_upgraded"), j::describe);
                    assertEquals(0, j.stat("links_fabric"), j::describe);
                    assertTrue(!j.stderr().contains("fabric transport available"), j::describe);
                }
            }
        }
    }

    static Stream<Arguments> jdksAndPaces() {
        return Stream.of(Jdk.values()).flatMap(j -> Stream.of(Arguments.of(j, 100, 1), Arguments.of(j, 0, 64)));
    }

    /**
     * remora.fabric.upgrade=true (the default): a client thread that pauses 100 us after each call returns (an
     * application that computes between its calls), or whose calls take long (here: 64 callbacks each), keeps its
     * connection on sockets; after the last decision, at 16384 calls (with {@link #UPGRADE_AFTER}), it says so (debug)
     * and no longer asks. The server calls the client back while serving each call: those calls move to fabric, since
     * the client waits for them. The client calls for 10 s and, on a slow or busy machine, on until it has made the
     * 8193 calls that take its connection past the third decision.
     */
    @ParameterizedTest
    @MethodSource("jdksAndPaces")
    void aPausingOrSlowCallerStaysOnSocketsWhileItsCallbacksMove(Jdk jdk, int pauseMicros, int callbacks)
            throws Exception {
        assumeFabric(jdk);
        List<String> opts = List.of(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.log=debug", LOOPBACK,
                UPGRADE_AFTER);
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, opts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, opts, UpgradeClient.class.getName(), String.valueOf(port), "10", "1",
                    String.valueOf(pauseMicros), "callback", String.valueOf(callbacks), "8193")) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                long calls = Long.parseLong(client.stdout().trim().substring("CALLS ".length()));
                assertTrue(calls > 8192, () -> "too few calls to decide three times\n" + client.describe());
                assertEquals(0, client.stat("links_upgraded"), client::describe);
                if (calls > 16384) { // the last decision: said once
                    assertTrue(client.stderr().contains("stays on its socket transport"), client::describe);
                }
                server.stop();
                assertEquals(1, server.stat("links_upgraded"), () -> "the callbacks' connection moved\n"
                        + server.describe());
                assertTrue(server.stderr().contains("moved to fabric after"), server::describe);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void calcSessionIsIdenticalOverFabric(Jdk jdk) throws Exception {
        assumeFabric(jdk);
        List<String> plain = List.of(LOOPBACK);
        List<String> vanilla = calc(jdk, plain, plain)[0].stdoutLines();
        Jvm[] r = calc(jdk, agent(), agent());
        Jvm client = r[0];
        Jvm server = r[1];
        assertEquals(vanilla, client.stdoutLines());
        String last = vanilla.get(vanilla.size() - 1);
        long calls = Long.parseLong(last.substring("calls ".length()));
        assertEquals(calls, client.stat("calls_remora"), () -> "every Calc call on Remora's path\n" + client.describe());
        assertEquals(0, client.stat("calls_jrmp"), client::describe);
        assertEquals(0, client.stat("fallbacks"), client::describe);
        assertTrue(client.stderr().contains("fabric link to 127.0.0.1:") && client.stderr().contains(" over shm"),
                () -> "the client's connection ran over an shm fabric link\n" + client.describe());
        assertTrue(server.stderr().contains(" over shm"), () -> "the server's side too\n" + server.describe());
        assertTrue(server.stat("calls_remora") >= 10, () -> "callbacks went back on Remora's path\n"
                + server.describe());

        // remora.native=false: one warning, the socket technology, the same output
        Jvm off = calc(jdk, agent("-Dremora.native=false"), agent("-Dremora.native=false"))[0];
        assertEquals(vanilla, off.stdoutLines());
        assertEquals(calls, off.stat("calls_remora"), off::describe);
        assertEquals(1, off.stat("fallbacks"), off::describe);
        long warnings = off.stderr().lines().filter(l -> !l.contains("stats:"))
                .filter(l -> l.contains("remora.transport=fabric but remora.native=false")).count();
        assertEquals(1, warnings, off::describe);
        assertTrue(!off.stderr().contains(" over shm"), off::describe);

        // Remora's own code failing while it sends a call's frame (remora.debug.faults=send: the first call frame):
        // that call goes by JRMP, the next ones over a new fabric link (AgentIT: the same over sockets)
        Jvm faulty = calc(jdk, agent(), agent("-Dremora.debug.faults=send"))[0];
        assertEquals(vanilla, faulty.stdoutLines());
        assertEquals(1, faulty.stat("calls_jrmp"), faulty::describe);
        assertEquals(calls - 1, faulty.stat("calls_remora"), faulty::describe);
        assertEquals(1, faulty.stat("fallbacks"), faulty::describe);
        assertEquals(3, faulty.stat("links_fabric"), faulty::describe); // and the callbacks' link
        long said = faulty.stderr().lines().filter(l -> !l.contains("stats:"))
                .filter(l -> l.contains("fault injected while sending a frame (remora.debug.faults=send)")
                        && l.contains("such calls go by JRMP")).count();
        assertEquals(1, said, faulty::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void serverKilledMidCallFailsPromptlyAndTheNextCallReconnects(Jdk jdk) throws Exception {
        assumeFabric(jdk);
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        String srv = ShimServer.class.getName();
        List<String> opts = agent();
        try (Jvm server = Jvm.start(jdk, opts, srv, String.valueOf(port), String.valueOf(objectPort))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, opts, ShimClient.class.getName(), String.valueOf(port),
                    String.valueOf(objectPort), "kill")) {
                client.awaitLine("CALLING", 60);
                Thread.sleep(300);
                server.close(); // SIGKILL: the fabric says nothing, the TCP liveness connection drops
                try (Jvm again = Jvm.start(jdk, opts, srv, String.valueOf(port), String.valueOf(objectPort))) {
                    again.awaitLine("READY", 60);
                    assertEquals(0, client.waitFor(120), client::describe);
                    List<String> lines = client.stdoutLines();
                    assertTrue(lines.get(2).endsWith("promptly"), client::describe);
                    assertTrue(client.stderr().contains(" over shm"), client::describe);
                }
            }
        }
    }
}
