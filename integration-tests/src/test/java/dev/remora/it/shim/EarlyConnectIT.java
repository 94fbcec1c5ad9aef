package dev.remora.it.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcServer;
import dev.remora.it.app.LookupThenCall;
import dev.remora.it.app.RemoteBinder;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * remora.connect.early on JDK 17 and 25: a client opens its Remora connection when a stub for the server's object
 * arrives (a registry lookup), before the application's first call, and that call then uses it (one connection in
 * all); off, nothing is opened before the first call and the DGC client's class is not instrumented; a server without
 * the agent is still called over JRMP; a registry in a JVM of its own, which receives stubs in the {@code bind} calls
 * it serves, opens nothing; a connection opened early that carries no call is closed once idle.
 */
class EarlyConnectIT {
    private static final String EARLY = "(opened as a stub for it arrived, before the first call; remora.connect.early)";

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void theLookupOpensTheConnectionThatTheFirstCallUses(Jdk jdk) throws Exception {
        Jvm client = lookupThenCall(jdk, true, "-Dremora.log=debug");
        assertEquals(1, client.stat("links_unix"), client::describe);
        assertEquals(1, client.stat("calls_remora"), client::describe);
        assertEquals(0, client.stat("calls_jrmp"), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void offTheFirstCallOpensIt(Jdk jdk) throws Exception {
        Jvm client = lookupThenCall(jdk, true, "-Dremora.log=debug", "-Dremora.connect.early=false");
        assertFalse(client.stderr().contains(EARLY), client::describe);
        assertFalse(client.stderr().contains("instrumented sun.rmi.transport.DGCClient"), client::describe);
        assertTrue(client.stderr().contains("Remora connection to"), client::describe);
        assertEquals(1, client.stat("links_unix"), client::describe);
        assertEquals(1, client.stat("calls_remora"), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aServerWithoutTheAgentIsCalledOverJrmp(Jdk jdk) throws Exception {
        Jvm client = lookupThenCall(jdk, false, "-Dremora.log=debug");
        assertEquals(0, client.stat("links_unix") + client.stat("links_socket"), client::describe);
        assertEquals(0, client.stat("calls_remora"), client::describe);
        assertEquals(1, client.stat("calls_jrmp"), client::describe);
    }

    /**
     * A registry in a JVM of its own: the stub a server binds there arrives in a call the registry serves, and opens
     * nothing (the registry never calls it); the client that looks it up there opens its connection to the server.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aStubBoundInARegistryOpensNothingThere(Jdk jdk) throws Exception {
        int port = Jvm.freePort();
        try (Jvm registry = Jvm.start(jdk, Jvm.rmiOptions(true, "-Dremora.log=debug"), RemoteBinder.class.getName(),
                String.valueOf(port), "registry")) {
            registry.awaitLine("READY", 60);
            try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(true), RemoteBinder.class.getName(),
                    String.valueOf(port))) {
                server.awaitLine("READY", 60);
                Jvm client = Jvm.start(jdk, Jvm.rmiOptions(true, "-Dremora.log=debug"),
                        LookupThenCall.class.getName(), String.valueOf(port));
                try {
                    client.awaitLine("LOOKED", 60);
                    client.awaitStderr(EARLY, 60);
                    client.send("go");
                    assertEquals(0, client.waitFor(60), client::describe);
                    assertTrue(client.stdoutLines().contains("CALLED 5"), client::describe);
                    assertEquals(1, client.stat("links_unix"), client::describe);
                } finally {
                    client.close();
                }
            }
            registry.stop();
            assertTrue(registry.stderr().contains("instrumented sun.rmi.transport.DGCClient"), registry::describe);
            assertFalse(registry.stderr().contains("Remora connection to"), registry::describe);
            assertEquals(0, registry.stat("links_unix") + registry.stat("links_socket"), registry::describe);
        }
    }

    /**
     * A connection opened early that carries no call is closed once idle for JRMP's client connection timeout, and the
     * server's thread that served it ends: the server's connection threads all go idle (JRMP's own connections, the
     * lookup's and the DGC's, close after the same timeout). The call made later opens another.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void anEarlyConnectionThatCarriesNoCallIsClosedWhenIdle(Jdk jdk) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(true), CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            Jvm client = Jvm.start(jdk, Jvm.rmiOptions(true, "-Dremora.log=debug",
                    "-Dsun.rmi.transport.connectionTimeout=1000"), LookupThenCall.class.getName(),
                    String.valueOf(port));
            try {
                client.awaitLine("LOOKED", 60);
                client.awaitStderr(EARLY, 60);
                client.awaitStderr("it carried no call in 1000 ms", 60);
                long deadline = System.nanoTime() + 30_000_000_000L;
                String threads;
                while ((threads = busyConnectionThreads(jdk, server)) != null) {
                    String shown = threads;
                    assertTrue(System.nanoTime() < deadline, () -> "the server still serves a connection:\n" + shown
                            + client.describe());
                    Thread.sleep(200);
                }
                client.send("go");
                assertEquals(0, client.waitFor(60), client::describe);
                assertTrue(client.stdoutLines().contains("CALLED 5"), client::describe);
                assertEquals(2, client.stat("links_unix"), client::describe);
                assertEquals(1, client.stat("calls_remora"), client::describe);
                assertEquals(0, client.stat("calls_jrmp"), client::describe);
            } finally {
                client.close();
            }
        }
    }

    /** The server's threads serving a connection ({@code RMI TCP Connection(n)-host}, JDK 17 and 25), or null. */
    private static String busyConnectionThreads(Jdk jdk, Jvm server) throws Exception {
        Process p = new ProcessBuilder(jdk.java().resolveSibling("jcmd").toString(), String.valueOf(server.pid()),
                "Thread.print").redirectErrorStream(true).start();
        String dump = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        assertEquals(0, p.waitFor(), dump);
        StringBuilder busy = new StringBuilder();
        for (String line : dump.split("\n")) {
            if (line.matches("\"RMI TCP Connection\\(\\d+\\).*")) {
                busy.append(line).append('\n');
            }
        }
        return busy.length() == 0 ? null : busy.toString();
    }

    /**
     * A CalcServer (with the agent or not) and a LookupThenCall client with the agent and {@code clientProps}. With
     * remora.connect.early on (not named false) and an agent on the server, waits until the client says it opened its
     * connection early before it lets the client call; else lets it call a second after the lookup, and checks that
     * no connection was opened meanwhile.
     */
    private static Jvm lookupThenCall(Jdk jdk, boolean serverAgent, String... clientProps) throws Exception {
        boolean early = !List.of(clientProps).contains("-Dremora.connect.early=false");
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(serverAgent), CalcServer.class.getName(),
                String.valueOf(port))) {
            server.awaitLine("READY", 60);
            Jvm client = Jvm.start(jdk, Jvm.rmiOptions(true, clientProps), LookupThenCall.class.getName(),
                    String.valueOf(port));
            try {
                client.awaitLine("LOOKED", 60);
                if (early && serverAgent) {
                    client.awaitStderr(EARLY, 60);
                } else {
                    Thread.sleep(1000);
                    assertFalse(client.stderr().contains("Remora connection to"), client::describe);
                }
                client.send("go");
                assertEquals(0, client.waitFor(60), client::describe);
                assertTrue(client.stdoutLines().contains("CALLED 5"), client::describe);
                return client;
            } finally {
                client.close();
            }
        }
    }
}
