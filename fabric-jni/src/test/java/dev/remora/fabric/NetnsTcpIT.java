package dev.remora.fabric;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The tcp provider across two network namespaces joined by a veth pair (10.213.77.1 and .2, only inside the
 * namespaces this test creates): the echo server runs in one, the FabricPingPong client in the other, each told
 * its interface through FI_TCP_IFACE. Needs root (CI runs as root); skipped with a message otherwise. The
 * namespaces (and with them the veth pair) are deleted at the end, also on failure.
 */
@Timeout(value = 120, unit = TimeUnit.SECONDS)
class NetnsTcpIT {
    private static final String PROVIDER = "tcp;ofi_rxm";

    @Test
    void pingPongAcrossAVethPair() throws Exception {
        ChildJvm.Result id = ChildJvm.run(List.of("id", "-u"), 10);
        assumeTrue(id.output.trim().equals("0"), "not root: the network-namespace test is skipped (CI runs it as root)");
        assumeTrue(ChildJvm.run(List.of("ip", "-V"), 10).status == 0, "iproute2 (ip) missing: test skipped");
        FabricTestSupport.assumeProvider(PROVIDER);

        long pid = ProcessHandle.current().pid() % 100_000;
        String nsA = "remora-fa-" + pid;
        String nsB = "remora-fb-" + pid;
        String vethA = "rfa" + pid;
        String vethB = "rfb" + pid;
        List<List<String>> setup = List.of(
                List.of("ip", "netns", "add", nsA),
                List.of("ip", "netns", "add", nsB),
                List.of("ip", "link", "add", vethA, "type", "veth", "peer", "name", vethB),
                List.of("ip", "link", "set", vethA, "netns", nsA),
                List.of("ip", "link", "set", vethB, "netns", nsB),
                List.of("ip", "-n", nsA, "addr", "add", "10.213.77.1/24", "dev", vethA),
                List.of("ip", "-n", nsB, "addr", "add", "10.213.77.2/24", "dev", vethB),
                List.of("ip", "-n", nsA, "link", "set", "lo", "up"),
                List.of("ip", "-n", nsB, "link", "set", "lo", "up"),
                List.of("ip", "-n", nsA, "link", "set", vethA, "up"),
                List.of("ip", "-n", nsB, "link", "set", vethB, "up"));
        try {
            for (List<String> cmd : setup) {
                ChildJvm.Result r = ChildJvm.run(cmd, 20);
                assertEquals(0, r.status, () -> String.join(" ", cmd) + " failed: " + r);
            }
            List<String> client = new ArrayList<>(List.of("ip", "netns", "exec", nsB, "env", "FI_TCP_IFACE=" + vethB));
            client.addAll(ChildJvm.javaCommand(List.of(), "dev.remora.fabric.tools.FabricPingPong", "-p", PROVIDER,
                    "-s", "64,100000,3000000", "-n", "300", "-w", "30", "-H",
                    "--server-prefix", "ip netns exec " + nsA + " env FI_TCP_IFACE=" + vethA));
            ChildJvm.Result r = ChildJvm.run(client, 90);
            System.out.println("tcp;ofi_rxm across a veth pair:\n" + r.output);
            assertFalse(r.timedOut, () -> "ping-pong timed out: " + r);
            assertEquals(0, r.status, () -> "ping-pong failed: " + r);
            long lines = r.output.lines().filter(l -> l.startsWith("java,tcp;ofi_rxm,")).count();
            assertEquals(3, lines, () -> "expected one CSV line per size: " + r);
        } finally {
            ChildJvm.run(List.of("ip", "netns", "del", nsA), 20);
            ChildJvm.run(List.of("ip", "netns", "del", nsB), 20);
        }
    }
}
