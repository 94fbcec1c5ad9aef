package dev.remora.it.sm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Under a SecurityManager (JDK 17; JDK 24+ has none) Remora's code holds no permissions, so the agent leaves the
 * JVM's RMI to JRMP: the application runs as without the agent, one line says why, and no hook fails. A
 * SecurityManager set before RMI's classes load (as here) finds Remora not yet activated: it weaves nothing, so no
 * call passes a hook; one set later finds the hooks, which count every call as a fallback (Hooks.underSecurityManager).
 * A client without a SecurityManager talking to such a server falls back to JRMP too.
 */
class SecurityManagerIT {
    private static final String LINE = "[remora] a SecurityManager is installed: Remora leaves this JVM's RMI to JRMP";
    private static final List<String> OUT = List.of("hi x0", "hi x1", "hi x2");

    @TempDir
    Path dir;

    private List<String> opts(boolean agent) throws Exception {
        Path policy = dir.resolve("app.policy");
        String classes = Paths.get(System.getProperty("it.appClasses", "target/test-classes")).toAbsolutePath()
                .toUri().toString();
        Files.writeString(policy, "grant codeBase \"" + classes + "\" { permission java.security.AllPermission; };\n");
        List<String> l = new ArrayList<>(Arrays.asList("-Djava.security.policy=" + policy,
                "-Djava.rmi.server.hostname=127.0.0.1"));
        if (agent) {
            l.add(Jvm.javaagent(null));
            l.add("-Dremora.stats=true");
        }
        return l;
    }

    /** {client, server} after three calls. */
    private Jvm[] run(boolean agent, String serverSm, String clientSm) throws Exception {
        int port = Jvm.freePort();
        Jvm server = Jvm.start(Jdk.JDK17, opts(agent), SmApp.class.getName(), "server", String.valueOf(port),
                serverSm);
        server.awaitLine("READY", 60);
        try (Jvm client = Jvm.start(Jdk.JDK17, opts(agent), SmApp.class.getName(), "client", String.valueOf(port),
                clientSm)) {
            assertEquals(0, client.waitFor(60), client::describe);
            server.stop();
            return new Jvm[] {client, server};
        } finally {
            server.close();
        }
    }

    private static long lines(Jvm j, String prefix) throws Exception {
        return Arrays.stream(j.stderr().split("\n")).filter(l -> l.startsWith(prefix)).count();
    }

    @Test
    void theAgentLeavesRmiToJrmpAndSaysSoOnce() throws Exception {
        Jdk.JDK17.require();
        Jvm[] plain = run(false, "sm", "sm");
        assertEquals(OUT, plain[0].stdoutLines(), plain[0]::describe);

        Jvm[] r = run(true, "sm", "sm");
        Jvm client = r[0];
        Jvm server = r[1];
        assertEquals(OUT, client.stdoutLines(), client::describe);
        assertEquals(1, lines(client, LINE), client::describe);
        assertEquals(1, lines(server, LINE), server::describe);
        // activation found the SecurityManager and wove nothing: no call passed a hook
        assertEquals(0, client.stat("calls_jrmp"), client::describe);
        assertEquals(0, client.stat("fallbacks"), client::describe);
        assertEquals(0, client.stat("calls_remora"), client::describe);
        assertEquals(0, client.stat("advice_errors"), client::describe);
        assertEquals(0, server.stat("advice_errors"), server::describe);
    }

    @Test
    void aClientWithoutOneTalksJrmpToAServerWithOne() throws Exception {
        Jdk.JDK17.require();
        Jvm[] r = run(true, "sm", "nosm");
        assertEquals(OUT, r[0].stdoutLines(), r[0]::describe);
        assertEquals(0, r[0].stat("calls_remora"), r[0]::describe);
        assertEquals(0, lines(r[0], LINE), r[0]::describe);
        assertEquals(0, r[1].stat("advice_errors"), r[1]::describe);
    }
}
