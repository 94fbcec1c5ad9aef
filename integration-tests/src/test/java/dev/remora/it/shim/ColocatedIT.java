package dev.remora.it.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The co-located short-cut on JDK 17 and 25: a JVM with the agent that calls the objects it exported gets what plain
 * RMI over loopback gives (copies, exceptions, context class loader, client host, callbacks, unexport), and those
 * calls count as Remora's while no byte crosses a Remora connection.
 */
class ColocatedIT {

    private static Jvm run(Jdk jdk, List<String> opts, String scenario) throws Exception {
        Jvm j = Jvm.start(jdk, opts, ColocatedMain.class.getName(), String.valueOf(Jvm.freePort()), scenario);
        assertEquals(0, j.waitFor(120), j::describe);
        return j;
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void callsToOwnObjectsAreJrmpsWithoutAConnection(Jdk jdk) throws Exception {
        List<String> vanilla;
        try (Jvm v = run(jdk, ShimIT.plain(), "calls")) {
            vanilla = v.stdoutLines();
        }
        assertTrue(vanilla.contains("mutate same=true caller+callee; caller still has caller, 2"), vanilla::toString);
        assertTrue(vanilla.contains("callback-stub a stub: hello from the callback"), vanilla::toString);
        for (String serializer : new String[] {"fast", "jdk"}) {
            try (Jvm a = run(jdk, ShimIT.agent("-Dremora.serializer=" + serializer), "calls")) {
                assertEquals(vanilla, a.stdoutLines(), () -> serializer + "\n" + a.describe());
                assertTrue(a.stat("calls_remora") >= 1024, () -> serializer + "\n" + a.describe());
                assertEquals(0, a.stat("bytes_out"), () -> "no Remora connection\n" + a.describe());
                assertEquals(0, a.stat("bytes_in"), () -> "no Remora connection\n" + a.describe());
            }
        }
        List<String> unexport;
        try (Jvm v = run(jdk, ShimIT.plain(), "unexport")) {
            unexport = v.stdoutLines();
        }
        assertTrue(unexport.get(1).startsWith("after-unexport java.rmi.NoSuchObjectException"), unexport::toString);
        try (Jvm a = run(jdk, ShimIT.agent(), "unexport")) {
            assertEquals(unexport, a.stdoutLines(), a::describe);
        }
    }
}
