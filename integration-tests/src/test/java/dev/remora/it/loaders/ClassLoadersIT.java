package dev.remora.it.loaders;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.io.IOException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Plugins, as an application server's deployments: two class loaders per JVM over the same classes, so two classes
 * of each name ({@link Plugins}). Every value must arrive as an object of the class of the loader that reads it: the
 * server's plugin whose object is called, the client's plugin that calls. JRMP resolves every class of every call;
 * Remora resolves a type once per connection and kept the first plugin's class for the second: the server's second
 * plugin got the first one's {@code Value} ("argument type mismatch", or a value taken for another type), and the
 * client's second plugin a {@code ClassCastException} between two classes {@code remora.it.plugin.Value}. With the
 * agent on both sides the output must be plain RMI's, and the calls on Remora's path.
 */
class ClassLoadersIT {
    /** Remote calls each client makes on Remora's path: 2 rounds, 2 plugins, 2 servers' plugins, 10 calls each. */
    private static final int CALLS = 80;

    @TempDir
    static Path classes;

    @BeforeAll
    static void compile() throws IOException {
        Jvm.compile(Paths.get("src/test/plugins"), classes);
    }

    /** The client's lines, and both JVMs' statistics checked; {@code tccl}: plugin or app, on both sides. */
    private static List<String> run(Jdk jdk, boolean agent, String tccl) throws Exception {
        int port = Jvm.freePort();
        String main = Plugins.class.getName();
        String dir = classes.toString();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(agent), main, "server", String.valueOf(port), dir, tccl)) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(agent), main, "client", String.valueOf(port), dir, tccl)) {
                String both = client.describe() + "\nserver:\n" + server.describe();
                assertEquals(0, client.waitFor(120), both);
                server.send("stop");
                assertEquals(0, server.waitFor(30), server::describe);
                if (agent) {
                    String all = client.describe() + "\nserver:\n" + server.describe();
                    assertEquals(CALLS, client.stat("calls_remora"), all);
                    assertEquals(0, client.stat("fallbacks"), all);
                    assertEquals(0, server.stat("fallbacks"), all);
                }
                return client.stdoutLines();
            }
        }
    }

    /** The same plugins in one JVM, calling each other through the co-located short-cut; its lines. */
    private static List<String> runColocated(Jdk jdk, boolean agent, String tccl) throws Exception {
        try (Jvm both = Jvm.start(jdk, Jvm.rmiOptions(agent), Plugins.class.getName(), "both",
                String.valueOf(Jvm.freePort()), classes.toString(), tccl)) {
            assertEquals(0, both.waitFor(120), both::describe);
            if (agent) {
                assertEquals(CALLS, both.stat("calls_remora"), both::describe);
                assertEquals(0, both.stat("fallbacks"), both::describe);
            }
            return both.stdoutLines();
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void pluginsOfOneJvmCallingEachOtherGetTheirOwnClasses(Jdk jdk) throws Exception {
        for (String tccl : List.of("plugin", "app")) {
            List<String> plain = runColocated(jdk, false, tccl);
            assertEquals(2 * 2 * 2 * 9, plain.size(), () -> String.join("\n", plain));
            assertEquals(String.join("\n", plain), String.join("\n", runColocated(jdk, true, tccl)), tccl);
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void eachPluginGetsItsOwnClassesAsWithoutTheAgent(Jdk jdk) throws Exception {
        for (String tccl : List.of("plugin", "app")) {
            List<String> plain = run(jdk, false, tccl);
            assertEquals(2 * 2 * 2 * 9, plain.size(), () -> String.join("\n", plain));
            assertTrue(plain.contains("cplugin2 -> calc2(splugin2): Value(10, p10@cplugin2)@cplugin2"),
                    () -> String.join("\n", plain));
            List<String> agent = run(jdk, true, tccl);
            assertEquals(String.join("\n", plain), String.join("\n", agent), tccl);
        }
    }

    /** Generations deployed and dropped in each JVM of {@link #redeployedGenerationsAreNotKept}. */
    private static final int GENERATIONS = 12;

    /** {@link Redeploy}: the loaders each JVM still reaches after its generations were dropped, "client, server". */
    private static String redeploy(Jdk jdk, boolean agent) throws Exception {
        int port = Jvm.freePort();
        String main = Redeploy.class.getName();
        String dir = classes.toString();
        List<String> options = Jvm.rmiOptions(agent, "-XX:SoftRefLRUPolicyMSPerMB=0");
        try (Jvm server = Jvm.start(jdk, options, main, "server", String.valueOf(port), dir);
                Jvm client = Jvm.start(jdk, options, main, "client", String.valueOf(port), dir)) {
            for (int g = 1; g <= GENERATIONS; g++) {
                server.send("deploy");
                server.awaitLine("DEPLOYED " + g, 60);
                client.send("call");
                client.awaitLine("CALLED " + g, 60);
            }
            client.send("count");
            assertEquals(0, client.waitFor(60), client::describe);
            server.send("count");
            assertEquals(0, server.waitFor(60), server::describe);
            String both = client.describe() + "\nserver:\n" + server.describe();
            if (agent) {
                assertEquals(0, client.stat("fallbacks"), both);
                assertEquals(0, server.stat("fallbacks"), both);
            }
            return retained(client) + ", " + retained(server);
        }
    }

    /** {@link #redeploy} in one JVM ({@code both}): the loaders it still reaches. */
    private static String redeployColocated(Jdk jdk, boolean agent) throws Exception {
        List<String> options = Jvm.rmiOptions(agent, "-XX:SoftRefLRUPolicyMSPerMB=0");
        try (Jvm both = Jvm.start(jdk, options, Redeploy.class.getName(), "both", String.valueOf(Jvm.freePort()),
                classes.toString())) {
            for (int g = 1; g <= GENERATIONS; g++) {
                both.send("deploy");
                both.awaitLine("CALLED " + (2 * g), 60);
            }
            both.send("count");
            assertEquals(0, both.waitFor(60), both::describe);
            if (agent) {
                assertEquals(0, both.stat("fallbacks"), both::describe);
                assertTrue(both.stat("calls_remora") > 0, both::describe);
            }
            return retained(both);
        }
    }

    private static String retained(Jvm jvm) throws IOException {
        return jvm.stdoutLines().stream().filter(l -> l.startsWith("RETAINED ")).findFirst()
                .orElseThrow(() -> new AssertionError("no RETAINED line\n" + jvm.describe()));
    }

    /**
     * An application server that redeploys while its connections stay: plain RMI lets every dropped generation's
     * loader go; with the agent each JVM kept all of them (its type tables, its per-method facts, the last call's
     * stub loader), so Metaspace grew with every redeployment. Now it must keep none, as plain RMI.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void redeployedGenerationsAreNotKept(Jdk jdk) throws Exception {
        String plain = redeploy(jdk, false);
        assertEquals("RETAINED 0 , RETAINED 0 ", plain, "plain RMI lets go of every generation");
        assertEquals(plain, redeploy(jdk, true));
        String colocated = redeployColocated(jdk, false);
        assertEquals("RETAINED 0 ", colocated, "plain RMI lets go of every generation");
        assertEquals(colocated, redeployColocated(jdk, true));
    }

    /** Callers of {@link #aReplyReadByAnotherCallerGetsItsCallersClasses}, and the calls each makes. */
    private static final int SHARED_THREADS = 4;
    private static final int SHARED_CALLS = 3000;

    /** {@link SharedStub}: the client's lines. */
    private static List<String> sharedStub(Jdk jdk, boolean agent) throws Exception {
        int port = Jvm.freePort();
        String main = SharedStub.class.getName();
        String dir = classes.toString();
        try (Jvm server = Jvm.start(jdk, Jvm.rmiOptions(agent), main, "server", String.valueOf(port), dir)) {
            server.awaitLine("READY", 60);
            // one connection for all callers (as over fabric, or past remora.connections): replies cross threads
            try (Jvm client = Jvm.start(jdk, Jvm.rmiOptions(agent, "-Dremora.connections=1"), main, "client",
                    String.valueOf(port), dir, String.valueOf(SHARED_THREADS), String.valueOf(SHARED_CALLS))) {
                assertEquals(0, client.waitFor(120), client::describe);
                server.send("stop");
                assertEquals(0, server.waitFor(30), server::describe);
                if (agent) {
                    assertTrue(client.stat("calls_remora") >= SHARED_THREADS * SHARED_CALLS, client::describe);
                    assertEquals(0, client.stat("fallbacks"), client::describe);
                }
                return client.stdoutLines();
            }
        }
    }

    /**
     * Deployments sharing a remote interface from a common loader, each with its own copy of its values' classes:
     * each result must be of its caller's deployment's class (its context class loader), also when another waiting
     * caller read the reply off the connection, as JRMP's caller reads its own.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aReplyReadByAnotherCallerGetsItsCallersClasses(Jdk jdk) throws Exception {
        List<String> plain = sharedStub(jdk, false);
        assertTrue(plain.contains("WRONG 0"), () -> String.join("\n", plain));
        List<String> agent = sharedStub(jdk, true);
        assertTrue(agent.contains("WRONG 0"), () -> String.join("\n", agent));
    }
}
