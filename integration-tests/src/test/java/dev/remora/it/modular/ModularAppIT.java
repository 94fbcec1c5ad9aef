package dev.remora.it.modular;

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
 * A modular RMI application ({@code src/test/modular}, compiled here), launched as users launch one:
 * {@code java -p dir -m module/class}. Its remote interface's package is exported to java.rmi only, as jdk.jstatd's
 * is, and one of its values is of a package exported to nobody. Such a module does not require jdk.unsupported, so
 * {@code java -m} leaves that module out of the boot layer.
 * <ul>
 *   <li>With {@code --add-modules jdk.unsupported} and the agent on both sides, the calls go on Remora's path and the
 *       client prints what it prints without the agent (before, every call failed on the server: Remora's own
 *       {@code Method} could not be invoked on an interface exported to java.rmi only);</li>
 *   <li>without it, each side says once that it runs plain RMI and names that option; the client prints the same
 *       (before, the server failed every call: its serializer could not load {@code sun.reflect.ReflectionFactory}).</li>
 * </ul>
 */
class ModularAppIT {
    private static final String MODULE = "remora.it.modular";
    private static final String NO_JDK_UNSUPPORTED = "[remora] ERROR the module jdk.unsupported is not in this JVM's"
            + " boot layer";

    @TempDir
    static Path modules;

    @BeforeAll
    static void compile() throws IOException {
        Jvm.compile(Paths.get("src/test/modular", MODULE), modules.resolve(MODULE));
    }

    /** Runs the server and the client; returns {client, server}, both exited. */
    private static Jvm[] run(Jdk jdk, List<String> options) throws Exception {
        int port = Jvm.freePort();
        Jvm server = Jvm.startModule(jdk, options, modules, MODULE + "/" + MODULE + ".Server", String.valueOf(port));
        try {
            server.awaitLine("READY", 60);
            Jvm client = Jvm.startModule(jdk, options, modules, MODULE + "/" + MODULE + ".Client",
                    String.valueOf(port));
            try {
                assertEquals(0, client.waitFor(120), () -> "client failed\n" + client.describe() + "\nserver:\n"
                        + server.describe());
                server.send("stop");
                assertEquals(0, server.waitFor(30), server::describe);
                return new Jvm[] {client, server};
            } finally {
                client.close();
            }
        } finally {
            server.close();
        }
    }

    private static List<String> plainOutput(Jdk jdk) throws Exception {
        Jvm[] plain = run(jdk, Jvm.rmiOptions(false));
        List<String> lines = plain[0].stdoutLines();
        assertEquals(List.of("echo: call 1999", "twice: Sample(42, abab, [2, 4, 6], Note(kept, 42))",
                "fail: remora.it.modular.api.Refused: no, thanks"), lines, () -> plain[0].describe());
        return lines;
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withJdkUnsupportedAddedTheCallsGoOnRemorasPath(Jdk jdk) throws Exception {
        List<String> expected = plainOutput(jdk);
        Jvm[] agent = run(jdk, Jvm.rmiOptions(true, "--add-modules", "jdk.unsupported"));
        String both = agent[0].describe() + "\nserver:\n" + agent[1].describe();
        assertEquals(expected, agent[0].stdoutLines(), both);
        assertEquals(2002, agent[0].stat("calls_remora"), both);
        assertEquals(0, agent[0].stat("fallbacks"), both);
        assertEquals(0, agent[1].stat("fallbacks"), both);
        assertTrue(!agent[0].stderr().contains("[remora] ERROR") && !agent[1].stderr().contains("[remora] ERROR"),
                both);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withoutJdkUnsupportedEachSideRunsPlainRmiAndNamesTheFix(Jdk jdk) throws Exception {
        List<String> expected = plainOutput(jdk);
        Jvm[] agent = run(jdk, Jvm.rmiOptions(true));
        String both = agent[0].describe() + "\nserver:\n" + agent[1].describe();
        assertEquals(expected, agent[0].stdoutLines(), both);
        for (Jvm jvm : agent) {
            String err = jvm.stderr();
            assertEquals(1, err.lines().filter(l -> l.startsWith(NO_JDK_UNSUPPORTED)).count(), both);
            assertTrue(err.contains("add --add-modules jdk.unsupported to the java command"), both);
            assertEquals(0, jvm.stat("calls_remora"), both);
            assertEquals(1, jvm.stat("fallbacks"), both);
        }
    }
}
