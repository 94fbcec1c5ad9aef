package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Server and client in this one JVM over loopback RMI (RMI still serializes and uses TCP within one JVM):
 * {@code --verify} passes on a correct server, catches a broken one, and a short timed run writes CSV rows.
 */
class LoopbackVerifyTest {

    private static BenchServer server;

    @BeforeAll
    static void start() throws Exception {
        server = BenchServer.start(BenchServer.options().parse(new String[] {"--port", "0"}));
    }

    @AfterAll
    static void stop() {
        server.close();
    }

    private static String[] args(String... more) {
        String[] base = {"--port", String.valueOf(server.port()), "--connect-timeout-s", "5"};
        String[] all = new String[base.length + more.length];
        System.arraycopy(base, 0, all, 0, base.length);
        System.arraycopy(more, 0, all, base.length, more.length);
        return all;
    }

    private static String[] run(int expectedCode, String... more) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int code = BenchClient.run(args(more), new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        assertEquals(expectedCode, code, err.toString(StandardCharsets.UTF_8));
        String text = out.toString(StandardCharsets.UTF_8);
        return text.isEmpty() ? new String[0] : text.split("\n");
    }

    @Test
    void verifyPassesForEveryKernelAndIsDeterministic() {
        String[] first = run(0, "--verify", "--objects", "all", "--sizes", "50,5000", "--star-threads", "3");
        // ping, ping2i, ping2i2f, raw_tcp, the 8 asynchronous kernels (api_wait1ms: Remora.async, synchronous here
        // without the agent); then ping_obj, echo_obj, pingpong, star, throw over 11 objects
        assertEquals(4 + 8 + 5 * 11, first.length, String.join("\n", first));
        for (String line : first) {
            assertTrue(line.matches("verify \\S+ \\S+ ok [0-9a-f]{16}"), line);
        }
        assertTrue(first[0].startsWith("verify ping - ok "), first[0]);
        String[] again = run(0, "--verify", "--objects", "all", "--sizes", "50,5000", "--star-threads", "3");
        assertEquals(List.of(first), List.of(again));
    }

    @Test
    void verifyCatchesAServerThatCorruptsResults() throws Exception {
        Broken broken = new Broken();
        PingService stub = (PingService) UnicastRemoteObject.exportObject(broken, 0);
        LocateRegistry.getRegistry("127.0.0.1", server.port()).rebind("broken", stub);
        try {
            String[] lines = run(1, "--verify", "--name", "broken", "--kernels",
                    "ping2i,echo_obj,pingpong,oneway,future_wait1ms,sync_wait1ms", "--objects", "float[50],tree15,null");
            String all = String.join("\n", lines);
            assertTrue(all.contains("verify oneway - FAIL"), all);
            assertTrue(all.contains("verify future_wait1ms - FAIL"), all);
            assertTrue(all.contains("verify sync_wait1ms - ok"), all);
            assertTrue(all.contains("verify ping2i - FAIL"), all);
            assertTrue(all.contains("verify echo_obj float[50] FAIL"), all);
            assertTrue(all.contains("verify echo_obj tree15 FAIL"), all);
            assertTrue(all.contains("verify echo_obj null ok"), all); // nothing to corrupt in null
            assertTrue(all.contains("verify pingpong null FAIL") && all.contains("callback"), all);
            // --verify-first refuses to time a server whose results are wrong.
            String[] timed = run(1, "--verify-first", "--name", "broken", "--kernels", "echo_obj", "--objects",
                    "float[50]", "--warmup-ms", "0", "--reps", "10");
            assertEquals(0, timed.length, String.join("\n", timed));
        } finally {
            UnicastRemoteObject.unexportObject(broken, true);
        }
    }

    @Test
    void timedRunWritesOneCsvRowPerKernelAndObject() {
        String[] lines = run(0, "--verify-first", "--kernels", "ping,echo_obj,pingpong,star,raw_tcp", "--objects", "4int,int[50]",
                "--warmup-ms", "0", "--warmup", "20", "--reps", "50", "--budget-ms", "2000", "--star-threads", "2",
                "--config", "test", "--round", "7");
        assertEquals(ResultRow.HEADER, lines[0]);
        assertEquals(1 + 1 + 2 + 2 + 2 + 1, lines.length, String.join("\n", lines));
        for (int i = 1; i < lines.length; i++) {
            ResultRow r = ResultRow.parse(lines[i]);
            assertEquals("test", r.config());
            assertEquals(7, r.round());
            assertEquals(50, r.calls(), lines[i]);
            assertTrue(r.medianUs() > 0 && r.medianUs() <= r.p90Us() && r.p90Us() <= r.p99Us(), lines[i]);
            assertTrue(r.callsPerS() > 0, lines[i]);
        }
        assertEquals("raw_tcp", ResultRow.parse(lines[lines.length - 1]).kernel());
    }

    @Test
    void coldRowComesFirstWithTheLookupInItsMean() {
        String[] lines = run(0, "--cold", "40", "--kernels", "ping", "--warmup-ms", "0", "--warmup", "5", "--reps", "10",
                "--budget-ms", "2000", "--config", "test", "--round", "2");
        assertEquals(ResultRow.HEADER, lines[0]);
        assertEquals(3, lines.length, String.join("\n", lines));
        ResultRow cold = ResultRow.parse(lines[1]);
        assertEquals(BenchClient.COLD_ID, cold.kernel());
        assertEquals(40, cold.calls());
        assertEquals("40 calls", cold.objectLabel());
        // the mean includes the lookup, the percentiles only the calls: the mean cannot be below the fastest call
        assertTrue(cold.medianUs() > 0 && cold.p90Us() <= cold.p99Us(), lines[1]);
        assertTrue(cold.cpuUs() > 0, "both JVMs' CPU since start, per call: " + lines[1]);
        assertEquals("ping", ResultRow.parse(lines[2]).kernel());
    }

    /**
     * Corrupts echoed arrays and trees, drops ping(int,int)'s second argument, skips the pingpong callback, drops
     * onewayPing and answers wait1ms with the wrong number.
     */
    static final class Broken implements PingService {
        private final PingServiceImpl ok = new PingServiceImpl(InetAddress.getLoopbackAddress(), () -> { });

        @Override
        public void ping() {
            ok.ping();
        }

        @Override
        public void ping(int a, int b) {
            ok.ping(a, 0);
        }

        @Override
        public void ping(int a, int b, float c, float d) {
            ok.ping(a, b, c, d);
        }

        @Override
        public void ping(Object o) {
            ok.ping(o);
        }

        @Override
        public Object echo(Object o) {
            if (o instanceof float[]) {
                ((float[]) o)[7] = -1f;
            } else if (o instanceof Tree) {
                ((Tree) o).right.right.right = null;
            }
            return o;
        }

        @Override
        public Object pingpong(Object o, Callback back) {
            return o;
        }

        @Override
        public Object star(Object o) {
            return o;
        }

        @Override
        public void fail(Object o) throws BenchException {
            ok.fail(o);
        }

        @Override
        public long lastReceivedDigest() {
            return ok.lastReceivedDigest();
        }

        @Override
        public int openRawEcho(int messageSize) throws RemoteException {
            return ok.openRawEcho(messageSize);
        }

        @Override
        public long compilationMillis() {
            return -1;
        }

        @Override
        public long cpuNanos() {
            return -1;
        }

        @Override
        public long lifetimeCpuNanos() {
            return -1;
        }

        @Override
        public void onewayPing() {
            // dropped: the next onewayCount() shows it never ran
        }

        @Override
        public long onewayCount() {
            return ok.onewayCount();
        }

        @Override
        public Echoed futureEcho(Object o) {
            return ok.futureEcho(o);
        }

        @Override
        public Echoed syncEcho(Object o) {
            return ok.syncEcho(o);
        }

        @Override
        public Echoed wait1ms(int i) {
            return ok.wait1ms(i + 1); // a wrong result
        }

        @Override
        public Echoed wait1msSync(int i) {
            return ok.wait1msSync(i);
        }

        @Override
        public void shutdown() {
        }
    }
}
