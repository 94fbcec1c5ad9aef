package dev.remora.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.Calc;
import dev.remora.it.app.ExitServer;
import java.rmi.registry.LocateRegistry;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * remora.exit.fast: a JVM waits up to 300 ms at exit for threads in native code, and an RMI server always has some
 * (accept loops, connections blocked reading the next call). Remora's exit hook, after the application's hooks,
 * closes RMI's listening sockets and shuts its accepted connections for reading. Checked here by what the hook did
 * (its debug line) and that the exit is otherwise the application's: same status, nothing else printed. What it saves
 * is measured by {@code scripts/startup.sh} (exit of an RMI server), not timed here.
 */
class ExitIT {

    private static final Pattern DONE = Pattern.compile(
            "exit: closed (\\d+) listening socket\\(s\\), shut (\\d+) connection\\(s\\)");

    /** Starts the server with these options, leaves a JRMP connection from this JVM idle on it, and has it exit. */
    private static Jvm exitWithAnIdleConnection(Jdk jdk, List<String> opts) throws Exception {
        int port = Jvm.freePort();
        Jvm server = Jvm.start(jdk, opts, ExitServer.class.getName(), String.valueOf(port));
        try {
            server.awaitLine("READY", 60);
            Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", port).lookup("calc");
            assertEquals(5, calc.add(2, 3)); // JRMP keeps the connection: the server's handler blocks reading it
            server.send("exit");
            assertEquals(3, server.waitFor(30), server::describe);
            return server;
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void theHookClosesTheListenersAndShutsTheIdleConnections(Jdk jdk) throws Exception {
        Jvm server = exitWithAnIdleConnection(jdk, List.of(Jvm.javaagent(null), "-Dremora.log=debug"));
        assertClosedAndShut(server, "by offset");
    }

    /**
     * Without jdk.internal.misc exported to Remora ({@code remora.serializer.unsafe=false}) the hook finds RMI's
     * transports by reflection, as the JDK's own {@code allKnownTransports} returns them, with the same result.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withoutUnsafeTheHookFindsTheTransportsByReflection(Jdk jdk) throws Exception {
        Jvm server = exitWithAnIdleConnection(jdk, List.of(Jvm.javaagent(null), "-Dremora.log=debug",
                "-Dremora.serializer.unsafe=false"));
        assertClosedAndShut(server, "by reflection");
    }

    private static void assertClosedAndShut(Jvm server, String how) throws Exception {
        String err = server.stderr();
        Matcher m = DONE.matcher(err);
        assertTrue(m.find(), () -> "no exit line\n" + server.describe());
        assertTrue(Integer.parseInt(m.group(1)) >= 2, () -> "registry and calc listen\n" + server.describe());
        assertTrue(Integer.parseInt(m.group(2)) >= 1, () -> "this JVM's connection\n" + server.describe());
        assertTrue(err.contains("(RMI's transports read " + how + ")"), () -> "read " + how + "\n" + server.describe());
    }

    /**
     * A Remora client (on one host: a Unix domain socket) leaves its connection idle; the server's exit releases the
     * link its server thread waits on, and the client goes on until told to stop.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void theHookReleasesRemorasOwnIdleLinks(Jdk jdk) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, List.of(Jvm.javaagent(null), "-Dremora.log=debug", "-Dremora.stats=true",
                "-Dremora.transport=socket"), ExitServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, List.of(Jvm.javaagent(null), "-Dremora.stats=true",
                    "-Dremora.transport=socket"), dev.remora.it.app.IdleClient.class.getName(), String.valueOf(port))) {
                client.awaitLine("CALLED 5", 60);
                server.send("exit");
                assertEquals(3, server.waitFor(30), server::describe);
                Matcher m = Pattern.compile("released (\\d+) Remora link\\(s\\)").matcher(server.stderr());
                assertTrue(m.find(), () -> "no exit line\n" + server.describe());
                assertTrue(Integer.parseInt(m.group(1)) >= 1, () -> "the client's link\n" + server.describe());
                assertTrue(server.stat("links_unix") >= 1, server::describe);
                client.send("stop");
                assertEquals(0, client.waitFor(30), client::describe);
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void anExitPrintsNothingAndCanBeTurnedOff(Jdk jdk) throws Exception {
        Jvm quiet = exitWithAnIdleConnection(jdk, List.of(Jvm.javaagent(null)));
        assertEquals("", quiet.stderr(), quiet::describe);
        Jvm off = exitWithAnIdleConnection(jdk, List.of(Jvm.javaagent(null), "-Dremora.log=debug",
                "-Dremora.exit.fast=false"));
        assertFalse(DONE.matcher(off.stderr()).find(), off::describe);
    }
}
