package dev.remora.it.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * What the JDK's jtreg RMI tests found Remora doing differently from JRMP, checked on JDK 17 and 25 with real JVMs:
 * the same program ({@link ConformanceMain}) prints the same lines with and without the agent, with either
 * serializer, on the co-located short-cut and over Remora's connections:
 * <ul>
 *   <li>server/serverStackTrace (ServerStackTrace, SuppressStackTraces): a server exception's trace is the server's,
 *       then the client's once; {@code sun.rmi.server.suppressStackTraces=true} set in main clears the server's;</li>
 *   <li>server/clientStackTrace (ClientStackTrace): the client's part has JRMP's exceptionReceivedFromServer
 *       frame;</li>
 *   <li>server/Unmarshal/checkUnmarshalOnStopThread: an Error or RuntimeException from a result's readObject, and a
 *       RuntimeException from an argument's writeObject, are thrown as they are;</li>
 *   <li>a result or exception that cannot be serialized: UnmarshalException of WriteAbortedException; a result whose
 *       writeObject throws a RuntimeException: the call fails as JRMP's whose server dropped the connection;</li>
 *   <li>a load-testing tool's remote engine (configured by one call longer than the hand-off time, then checked on
 *       every call): consecutive calls of one client thread run on one server thread, with its ThreadLocals;</li>
 *   <li>{@code sun.rmi.transport.tcp.responseTimeout} set in the client's main (after premain) bounds a slow call;</li>
 *   <li>transport/readTimeout (ReadTimeoutTest): a client that connects and says nothing is dropped after
 *       {@code sun.rmi.transport.tcp.readTimeout} (set in main, as the jtreg test does).</li>
 * </ul>
 */
class ConformanceIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";

    private static List<String> plain() {
        return List.of(LOOPBACK);
    }

    private static List<String> agent(String serializer) {
        return List.of(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.serializer=" + serializer, LOOPBACK);
    }

    private static String[] args(String mode, int port, boolean suppress) {
        String p = String.valueOf(port);
        return suppress ? new String[] {mode, p, "suppress"} : new String[] {mode, p};
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void colocatedCallsAreJrmps(Jdk jdk) throws Exception {
        for (boolean suppress : new boolean[] {false, true}) {
            List<String> vanilla;
            try (Jvm v = Jvm.start(jdk, plain(), ConformanceMain.class.getName(), args("colocated", 0, suppress))) {
                assertEquals(0, v.waitFor(120), v::describe);
                vanilla = v.stdoutLines();
            }
            assertTrue(vanilla.get(0).startsWith("ping dev.remora.it.conformance.Conf$PingException"),
                    vanilla::toString);
            for (String serializer : new String[] {"fast", "jdk"}) {
                try (Jvm a = Jvm.start(jdk, agent(serializer), ConformanceMain.class.getName(),
                        args("colocated", 0, suppress))) {
                    assertEquals(0, a.waitFor(120), a::describe);
                    assertEquals(String.join("\n", vanilla), String.join("\n", a.stdoutLines()),
                            () -> serializer + (suppress ? " suppress" : "") + "\n" + a.describe());
                    assertTrue(a.stat("calls_remora") >= 8, () -> "short-cut taken\n" + a.describe());
                }
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void networkCallsAreJrmps(Jdk jdk) throws Exception {
        for (boolean suppress : new boolean[] {false, true}) {
            List<String> vanilla = network(jdk, plain(), plain(), suppress, null);
            for (String serializer : new String[] {"fast", "jdk"}) {
                network(jdk, agent(serializer), agent(serializer), suppress, vanilla);
            }
        }
    }

    /** A server and a client JVM; compares the client's lines with {@code expected} (when given); returns them. */
    private static List<String> network(Jdk jdk, List<String> serverOpts, List<String> clientOpts, boolean suppress,
            List<String> expected) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, serverOpts, ConformanceMain.class.getName(), args("server", port, suppress))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, ConformanceMain.class.getName(), args("client", port,
                    false))) {
                assertEquals(0, client.waitFor(120), () -> client.describe() + "\nserver:\n" + server.describe());
                List<String> lines = client.stdoutLines();
                if (expected != null) {
                    assertEquals(String.join("\n", expected), String.join("\n", lines), () -> client.describe()
                            + "\nserver:\n" + server.describe());
                    assertTrue(client.stat("calls_remora") >= 8, () -> "Remora's protocol\n" + client.describe());
                }
                return lines;
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aClientThatSaysNothingIsDroppedAfterTheReadTimeout(Jdk jdk) throws Exception {
        List<List<String>> runs = new ArrayList<>();
        runs.add(plain());
        runs.add(agent("fast"));
        for (List<String> opts : runs) {
            int port = Jvm.freePort();
            try (Jvm server = Jvm.start(jdk, opts, ConformanceMain.class.getName(), "readtimeout",
                    String.valueOf(port))) {
                server.awaitLine("READY", 60);
                try (Socket silent = new Socket(InetAddress.getLoopbackAddress(), port)) {
                    long start = System.nanoTime();
                    silent.setSoTimeout(20_000); // ReadTimeoutTest waits four times the timeout
                    InputStream in = silent.getInputStream();
                    int first;
                    try {
                        first = in.read();
                    } catch (SocketTimeoutException e) {
                        throw new AssertionError("the server kept a silent connection for 20 s, readTimeout=2000 "
                                + Arrays.toString(opts.toArray()) + "\n" + server.describe());
                    }
                    long ms = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start);
                    assertEquals(-1, first, "closed, nothing sent");
                    assertTrue(ms >= 1500 && ms < 10_000, () -> "closed after " + ms + " ms " + opts);
                }
            }
        }
    }
}
