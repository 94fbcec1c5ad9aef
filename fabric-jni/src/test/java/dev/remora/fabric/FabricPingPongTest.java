package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The Java floors of the compare script: FabricPingPong over shm with direct buffers, arrays (-a) and fresh arrays
 * (-f, what Java semantics add), as two JVMs; each mode checks its echoes byte for byte and prints one CSV line per
 * size. Timings are printed, never asserted.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class FabricPingPongTest {

    @Test
    void everyModeEchoesOverShm() throws Exception {
        FabricTestSupport.assumeProvider("shm");
        for (String[] mode : new String[][] {{}, {"-a"}, {"-f"}}) {
            List<String> cmd = ChildJvm.javaCommand(List.of(), "dev.remora.fabric.tools.FabricPingPong", "-p", "shm",
                    "-s", "64,100000", "-n", "300", "-w", "30");
            cmd.addAll(List.of(mode));
            ChildJvm.Result r = ChildJvm.run(cmd, 60);
            System.out.println(String.join(" ", mode) + ": " + r.output);
            assertFalse(r.timedOut, () -> "ping-pong timed out: " + r);
            assertEquals(0, r.status, () -> "ping-pong failed: " + r);
            String impl = mode.length == 0 ? "java" : "-a".equals(mode[0]) ? "java-array" : "java-fresh";
            for (String size : List.of("64", "100000")) {
                assertTrue(r.output.lines().anyMatch(l -> l.startsWith(impl + ",shm,block," + size + ",300,")),
                        () -> "no " + impl + " line for " + size + " bytes: " + r);
            }
        }
    }
}
