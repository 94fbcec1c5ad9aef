package dev.remora.it.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The distributed garbage collector with Remora's protocol on both sides (fast and jdk serializer), on JDK 17 and 25,
 * against plain RMI: a callback passed as an argument and a remote object returned as a result stay referenced while
 * held (three lease periods) and become unreferenced once dropped. Leases are 2 s, the lease check every 0.5 s.
 */
class DgcIT {
    private static final String LEASE = "2000";
    private static final List<String> DGC = Arrays.asList("-Djava.rmi.dgc.leaseValue=" + LEASE,
            "-Dsun.rmi.dgc.checkInterval=500");

    private static List<String> with(List<String> base) {
        List<String> l = new ArrayList<>(base);
        l.addAll(DGC);
        return l;
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void argumentsAndResultsAreCollectedAsUnderJrmp(Jdk jdk) throws Exception {
        String srv = DgcServer.class.getName();
        String cli = DgcClient.class.getName();
        List<String> vanilla = ShimIT.out(ShimIT.run(jdk, with(ShimIT.plain()), with(ShimIT.plain()), srv, cli,
                LEASE));
        assertEquals(Arrays.asList("callback pong a", "argument held after 3 leases: unreferenced=false",
                "callback again pong b", "argument dropped: unreferenced=true", "token 42",
                "result held after 3 leases: unreferenced=false", "token again 42",
                "result dropped: unreferenced=true"), vanilla);
        for (String serializer : new String[] {"fast", "jdk"}) {
            String s = "-Dremora.serializer=" + serializer;
            Object[] r = ShimIT.run(jdk, with(ShimIT.agent(s)), with(ShimIT.agent(s)), srv, cli, LEASE);
            assertEquals(vanilla, ShimIT.out(r), () -> serializer + "\n" + ShimIT.client(r).describe()
                    + "\nserver:\n" + ShimIT.server(r).describe());
            assertTrue(ShimIT.client(r).stat("calls_remora") >= 9, () -> serializer + ": the client's calls on"
                    + " Remora's path\n" + ShimIT.client(r).describe());
            assertEquals(2, ShimIT.server(r).stat("calls_remora"), () -> serializer + ": both callbacks on"
                    + " Remora's path\n" + ShimIT.server(r).describe());
        }
    }
}
