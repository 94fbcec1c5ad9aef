package dev.remora.it.large;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Values as large as an application sends them: a 512 MB int[] as a result and as an argument arrives intact over
 * each transport with the agent on both sides, as with plain RMI (Remora's frames used to stop at 512 MB). The
 * times are printed, not asserted (scripts/compare.sh measures speed).
 */
class LargeValuesIT {
    private static final String INTS = String.valueOf(128 * 1024 * 1024); // 512 MB

    private static List<String> opts(String... more) {
        List<String> o = new ArrayList<>(List.of("-Xmx3g", "-Djava.rmi.server.hostname=127.0.0.1"));
        o.addAll(List.of(more));
        return o;
    }

    private static void run(String label, List<String> options) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(Jdk.JDK17, options, LargeMain.class.getName(), "server", String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(Jdk.JDK17, options, LargeMain.class.getName(), "client",
                    String.valueOf(port), INTS)) {
                assertEquals(0, client.waitFor(300), () -> client.describe() + "\nserver:\n" + server.describe());
                List<String> lines = client.stdoutLines();
                assertEquals("result intact true, argument intact true", lines.get(0), client::describe);
                System.out.println(label + ": " + lines.get(1));
                if (!label.equals("plain")) {
                    assertTrue(client.stat("calls_remora") >= 2, () -> "went by Remora\n" + client.describe());
                }
            }
        }
    }

    @Test
    void halfAGigabyteBothWaysOnEveryTransport() throws Exception {
        run("plain", opts());
        run("socket", opts(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.transport=socket"));
        run("fabric", opts(Jvm.javaagent(null), "-Dremora.stats=true", "-Dremora.transport=fabric"));
    }
}
