package dev.remora.it.jmx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Remote JMX, the RMI application most JVMs run: the JDK's own JMX agent ({@code com.sun.management.jmxremote.port})
 * and its RMI connector, neither written by us, managed by a JMX client over RMI (JDK 17 and 25). With the agent on
 * both sides the session runs on Remora's protocol, with it on one side only on JRMP, and in every case the client
 * sees what it sees without the agent: open-type values, attributes, operations, notifications, exceptions, the
 * agent's deserialization filter on every operation's parameters (JDK 25's default, set on JDK 17 as well), and the
 * connector's own filter on credentials (a server started with a password file).
 */
class JmxIT {
    /**
     * JDK 25's default for the JMX agent's deserialization filter ({@code conf/management/management.properties}), set
     * on JDK 17 too (which has none by default): every operation's parameters pass through it twice, once as a
     * {@code MarshalledObject} argument and once when the connector unwraps them with the filter it kept.
     */
    private static final String JMX_FILTER = "java.lang.*;java.lang.reflect.Proxy;java.math.BigInteger;"
            + "java.math.BigDecimal;java.util.*;javax.management.*;javax.management.modelmbean.*;"
            + "javax.management.monitor.*;javax.management.openmbean.*;javax.management.relation.*;"
            + "javax.management.remote.*;javax.management.remote.rmi.*;javax.management.timer.*;javax.rmi.ssl.*;"
            + "java.rmi.MarshalledObject;java.rmi.dgc.*;java.rmi.server.*;javax.security.auth.Subject;!*";

    @TempDir
    Path dir;

    private static List<String> jmxServer(boolean agent, int port, String... props) {
        List<String> l = Jvm.rmiOptions(agent, "-Dcom.sun.management.jmxremote.port=" + port,
                "-Dcom.sun.management.jmxremote.ssl=false",
                "-Dcom.sun.management.jmxremote.serial.filter.pattern=" + JMX_FILTER);
        l.addAll(Arrays.asList(props));
        return l;
    }

    /** Runs JmxServer and a JmxClient session; returns {client stdout, client, server}. */
    private static Object[] run(Jdk jdk, List<String> serverOpts, boolean clientAgent, int port, String mode)
            throws Exception {
        try (Jvm server = Jvm.start(jdk, serverOpts, JmxServer.class.getName())) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(clientAgent), JmxClient.class.getName(), String.valueOf(port),
                    mode)) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Object[] {client.stdoutLines(), client, server};
            }
        }
    }

    private static String both(Object[] r) {
        return ((Jvm) r[1]).describe() + "\nserver:\n" + ((Jvm) r[2]).describe();
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aJmxSessionSeesWhatItSeesWithoutTheAgent(Jdk jdk) throws Exception {
        String open = "-Dcom.sun.management.jmxremote.authenticate=false";
        int port = Jvm.freePort();
        Object[] plain = run(jdk, jmxServer(false, port, open), false, port, "session");
        @SuppressWarnings("unchecked")
        List<String> expected = (List<String>) plain[0];
        // the attributes this JDK cannot answer here (unsupported measurements) are named, not listed: the same set
        // must come back with the agent
        assertTrue(expected.size() > 4 && expected.get(4).startsWith("java.lang attributes: asked > 100 true,"),
                () -> both(plain));
        assertEquals(Arrays.asList("mbeans > 0: true", "runtime: vendor known true, uptime > 0 true",
                "heap used > 0: true", "thread dump has main: true", expected.get(4),
                "counter: add(3) after 5 = 8, Count = 8",
                "notifications: [counter.added 9 added 1, counter.added 11 added 2, counter.added 14 added 3]",
                "missing MBean: javax.management.InstanceNotFoundException",
                "fail(): javax.management.MBeanException of java.io.IOException: the counter refuses",
                "2000 adds: last 2014, sum 2029000", "closed"), expected, () -> both(plain));

        for (boolean[] agents : new boolean[][] {{true, true}, {true, false}, {false, true}}) {
            port = Jvm.freePort();
            Object[] r = run(jdk, jmxServer(agents[0], port, open), agents[1], port, "session");
            String which = "agent on server " + agents[0] + ", on client " + agents[1];
            assertEquals(expected, r[0], () -> which + "\n" + both(r));
            Jvm client = (Jvm) r[1];
            Jvm server = (Jvm) r[2];
            if (agents[0] && agents[1]) {
                assertTrue(client.stat("calls_remora") >= 2000, () -> which + ": the session on Remora's path\n"
                        + both(r));
                assertEquals(0, client.stat("fallbacks"), () -> which + "\n" + both(r));
            } else if (agents[1]) {
                assertTrue(client.stat("calls_jrmp") >= 2000, () -> which + ": JRMP to a plain server\n" + both(r));
            } else {
                assertTrue(server.stat("server_jrmp_dispatches") >= 2000, () -> which + ": JRMP from a plain"
                        + " client\n" + both(r));
            }
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void credentialsAreCheckedAndFilteredAsWithoutTheAgent(Jdk jdk) throws Exception {
        Path password = dir.resolve("jmxremote.password");
        Files.writeString(password, "monitor s3cret\n");
        Files.setPosixFilePermissions(password, PosixFilePermissions.fromString("rw-------"));
        Path access = dir.resolve("jmxremote.access");
        Files.writeString(access, "monitor readonly\n");
        String[] auth = {"-Dcom.sun.management.jmxremote.authenticate=true",
            "-Dcom.sun.management.jmxremote.password.file=" + password,
            "-Dcom.sun.management.jmxremote.access.file=" + access};
        int port = Jvm.freePort();
        Object[] plain = run(jdk, jmxServer(false, port, auth), false, port, "auth");
        List<String> refusedByFilter = Arrays.asList("ServerException", "UnmarshalException",
                "InvalidClassException");
        assertEquals(Arrays.asList("String[]: connected, mbeans > 0 true",
                "String[]: refused [SecurityException, FailedLoginException]",
                "HashMap: refused " + refusedByFilter, "ArrayList: refused " + refusedByFilter), plain[0],
                () -> both(plain));
        for (boolean[] agents : new boolean[][] {{true, true}, {true, false}}) {
            int p = Jvm.freePort();
            Object[] r = run(jdk, jmxServer(agents[0], p, auth), agents[1], p, "auth");
            assertEquals(plain[0], r[0], () -> "agent on server " + agents[0] + ", on client " + agents[1] + "\n"
                    + both(r));
        }
    }

    /**
     * A connector server that listens through a custom RMIServerSocketFactory whose sockets are plain ones (as the
     * JDK's own JMX tests make): its objects are JRMP's with the agent too, and the session must not notice. In one
     * JVM (client and connector server together, the JDK's BrokenConnectionTest's set-up) and across two. Before
     * Remora declined such connections, the client's first call got "no such object in table".
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aServerSocketFactorysEndpointStaysOnJrmp(Jdk jdk) throws Exception {
        List<String> expected = null;
        for (boolean agent : new boolean[] {false, true}) {
            try (Jvm one = Jvm.start(jdk, Jvm.rmiOptions(agent), JmxClient.class.getName(), "-", "local")) {
                assertEquals(0, one.waitFor(120), () -> "agent " + agent + "\n" + one.describe());
                List<String> out = one.stdoutLines();
                if (expected == null) {
                    expected = out;
                    assertEquals("closed", out.get(out.size() - 1), () -> one.describe());
                } else {
                    assertEquals(expected, out, () -> "in one JVM, agent " + agent + "\n" + one.describe());
                }
            }
        }
        for (boolean agent : new boolean[] {false, true}) {
            try (Jvm server = Jvm.start(jdk, jmxServer(agent, Jvm.freePort(),
                    "-Dcom.sun.management.jmxremote.authenticate=false"), JmxServer.class.getName(), "factory")) {
                server.awaitLine("READY", 60);
                String url = server.stdoutLines().stream().filter(l -> l.startsWith("URL ")).findFirst()
                        .orElseThrow(() -> new AssertionError("no URL line\n" + server.describe())).substring(4);
                try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(agent), JmxClient.class.getName(), url, "url")) {
                    assertEquals(0, client.waitFor(120), () -> "agent " + agent + "\n" + client.describe()
                            + "\nserver:\n" + server.describe());
                    server.stop();
                    List<String> exp = expected;
                    assertEquals(exp, client.stdoutLines(), () -> "two JVMs, agent " + agent + "\n" + client.describe()
                            + "\nserver:\n" + server.describe());
                    if (agent) {
                        assertTrue(client.stat("calls_jrmp") >= 2000, () -> "JRMP's endpoint\n" + client.describe());
                        assertTrue(server.stat("server_jrmp_dispatches") >= 2000, () -> server.describe());
                    }
                }
            }
        }
    }
}
