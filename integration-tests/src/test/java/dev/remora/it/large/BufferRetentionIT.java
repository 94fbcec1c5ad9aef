package dev.remora.it.large;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A thread that once made a large call keeps nothing of its size, as with JRMP, whose streams go with the call: Remora
 * kept each calling thread's receive buffer, and each connection's, at the largest message it had carried, so that a
 * pool of worker threads that each once fetched a large value held that much heap for good ({@link RetentionMain}).
 */
class BufferRetentionIT {
    private static final int THREADS = 4;
    private static final int MB = 24;

    /** {client, server} heap used after collection, MB. */
    private static long[] heap(List<String> options) throws Exception {
        int port = Jvm.freePort();
        String main = RetentionMain.class.getName();
        try (Jvm server = Jvm.start(Jdk.JDK17, options, main, "server", String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(Jdk.JDK17, options, main, "client", String.valueOf(port),
                    String.valueOf(THREADS), String.valueOf(MB))) {
                assertEquals(0, client.waitFor(120), () -> client.describe() + "\nserver:\n" + server.describe());
                server.send("count");
                assertEquals(0, server.waitFor(60), server::describe);
                return new long[] {heapOf(client), heapOf(server)};
            }
        }
    }

    private static long heapOf(Jvm jvm) throws Exception {
        for (String l : jvm.stdoutLines()) {
            if (l.startsWith("HEAP ")) {
                return Long.parseLong(l.substring(5));
            }
        }
        throw new AssertionError("no HEAP line\n" + jvm.describe());
    }

    @Test
    void aLargeCallIsNotKeptByItsThreadOrConnection() throws Exception {
        List<String> plain = List.of("-Xmx1g", "-XX:+UseSerialGC", "-Djava.rmi.server.hostname=127.0.0.1");
        long[] p = heap(plain);
        for (String transport : List.of("socket", "fabric")) {
            List<String> agent = List.of("-Xmx1g", "-XX:+UseSerialGC", "-Djava.rmi.server.hostname=127.0.0.1",
                    Jvm.javaagent(null), "-Dremora.transport=" + transport);
            long[] a = heap(agent);
            String seen = transport + ": client " + a[0] + " MB, server " + a[1] + " MB; plain RMI " + p[0] + ", "
                    + p[1];
            System.out.println(seen);
            // the threads' large calls were THREADS * MB in each direction: none of it may stay
            assertTrue(a[0] <= p[0] + MB / 2, seen);
            assertTrue(a[1] <= p[1] + MB / 2, seen);
        }
    }
}
