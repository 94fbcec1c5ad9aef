package dev.remora.it.fidelity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcServer;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * No value changes on the way: strings of every char (lone surrogates, NUL, random chars), chars, -0.0, NaNs,
 * sharing and cycles come back from Remora as from the JDK's own round trip ({@link FidelityMain}), on the RMI path
 * (agent on both sides, each serializer) and on {@code remora.oos=fast} streams, on JDK 17 and 25. The same program
 * without the agent checks the harness itself.
 */
class FidelityIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";
    private static final String GRAPHS = "300";

    private static Jvm finish(Jvm jvm) throws Exception {
        int exit = jvm.waitFor(180);
        assertEquals(0, exit, jvm::describe);
        List<String> out = jvm.stdoutLines();
        assertTrue(out.get(out.size() - 1).startsWith("OK "), jvm::describe);
        return jvm;
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void streamsUnderOosFastGiveBackWhatTheJdkGivesBack(Jdk jdk) throws Exception {
        try (Jvm plain = Jvm.start(jdk, List.of(), FidelityMain.class.getName(), "streams", GRAPHS)) {
            finish(plain);
            assertTrue(plain.stdoutLines().contains("header ACED0005"), plain::describe);
        }
        try (Jvm fast = Jvm.start(jdk, List.of(Jvm.javaagent(null), "-Dremora.oos=fast", "-Dremora.stats=true"),
                FidelityMain.class.getName(), "streams", GRAPHS)) {
            finish(fast);
            assertTrue(fast.stdoutLines().contains("header ACED524E"), () -> "Remora's stream format was in use\n"
                    + fast.describe());
            assertTrue(fast.stat("fast_streams") > 600, fast::describe);
            assertEquals(0, fast.stat("advice_errors"), fast::describe);
        }
    }

    /** The probe's checks, one line per call, with the same options on both sides. */
    private static List<String> filterChecks(Jdk jdk, List<String> opts) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, opts, FilterProbe.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, opts, FilterProbe.class.getName(), "client", String.valueOf(port),
                    "150")) {
                finish(client);
                return client.stdoutLines();
            }
        }
    }

    /**
     * A per-export filter (jtreg's FilterUROTest counts its calls) sees, for every argument, the checks JRMP shows
     * it: classes, array lengths, depth and references, call after call on one connection.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void rmiFiltersSeeWhatJrmpShowsThem(Jdk jdk) throws Exception {
        List<String> jrmp = filterChecks(jdk, List.of(LOOPBACK));
        assertTrue(jrmp.stream().filter(l -> l.contains("java.lang.Number")).count() > 10, () -> String.join("\n",
                jrmp));
        List<String> remora = filterChecks(jdk, List.of(Jvm.javaagent(null), "-Dremora.serializer=fast", LOOPBACK));
        for (int i = 0; i < jrmp.size(); i++) {
            assertEquals(jrmp.get(i), remora.get(i), "call " + i);
        }
        assertEquals(jrmp.size(), remora.size());
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void rmiEchoGivesBackWhatTheJdkGivesBack(Jdk jdk) throws Exception {
        for (String serializer : new String[] {"fast", "jdk"}) {
            List<String> opts = List.of(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.serializer=" + serializer,
                    LOOPBACK);
            int port = Jvm.freePort();
            try (Jvm server = Jvm.start(jdk, opts, CalcServer.class.getName(), String.valueOf(port))) {
                server.awaitLine("READY", 60);
                try (Jvm client = Jvm.start(jdk, opts, FidelityMain.class.getName(), "rmi", String.valueOf(port),
                        GRAPHS)) {
                    finish(client);
                    assertTrue(client.stat("calls_remora") > 300, () -> serializer + ": calls on Remora's path\n"
                            + client.describe());
                    assertEquals(0, client.stat("fallbacks"), client::describe);
                }
            }
        }
    }
}
