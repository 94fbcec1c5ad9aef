package dev.remora.it.shim;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcClient;
import dev.remora.it.app.CalcServer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * rmi-shim with real JVMs on JDK 17 and 25: the same results as plain RMI with Remora's protocol on both sides
 * (pool and inline dispatch) and with the agent on one side only (JRMP negotiated), for the Calc session (values,
 * exceptions, callbacks, getClientHost, remote objects, threads) and the shim scenarios (unknown method hash,
 * unexport, a malformed frame, 16 threads, response timeout, server killed mid-call and restarted).
 */
class ShimIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";

    static List<String> agent(String... props) {
        List<String> l = new ArrayList<>();
        l.add(Jvm.javaagent(null));
        l.add("-Dremora.stats=true");
        l.add(LOOPBACK);
        l.addAll(Arrays.asList(props));
        return l;
    }

    static List<String> plain(String... props) {
        List<String> l = new ArrayList<>();
        l.add(LOOPBACK);
        l.addAll(Arrays.asList(props));
        return l;
    }

    /** Runs a server and a client to completion; returns {client stdout, client, server}. */
    static Object[] run(Jdk jdk, List<String> serverOpts, List<String> clientOpts, String serverMain,
            String clientMain, String... clientArgs) throws Exception {
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        List<String> cargs = new ArrayList<>();
        cargs.add(String.valueOf(port));
        if (serverMain.equals(ShimServer.class.getName())) {
            cargs.add(String.valueOf(objectPort));
        }
        cargs.addAll(Arrays.asList(clientArgs));
        try (Jvm server = Jvm.start(jdk, serverOpts, serverMain, String.valueOf(port), String.valueOf(objectPort))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, clientMain, cargs.toArray(new String[0]))) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Object[] {client.stdoutLines(), client, server};
            }
        }
    }

    @SuppressWarnings("unchecked")
    static List<String> out(Object[] r) {
        return (List<String>) r[0];
    }

    static Jvm client(Object[] r) {
        return (Jvm) r[1];
    }

    static Jvm server(Object[] r) {
        return (Jvm) r[2];
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void calcSessionIsIdenticalOnRemorasProtocol(Jdk jdk) throws Exception {
        String calc = CalcServer.class.getName();
        String cli = CalcClient.class.getName();
        List<String> vanilla = out(run(jdk, plain(), plain(), calc, cli, "200"));
        for (String dispatch : new String[] {"pool", "inline"}) {
            Object[] r = run(jdk, agent("-Dremora.dispatch=" + dispatch), agent("-Dremora.transport=socket"), calc,
                    cli, "200");
            assertEquals(vanilla, out(r), dispatch);
            String last = out(r).get(out(r).size() - 1);
            long calls = Long.parseLong(last.substring("calls ".length()));
            assertEquals(calls, client(r).stat("calls_remora"), () -> "every Calc call on Remora's protocol\n"
                    + client(r).describe());
            assertEquals(0, client(r).stat("calls_jrmp"), client(r)::describe);
            assertTrue(server(r).stat("calls_remora") >= 10, () -> "callbacks went back on Remora's protocol\n"
                    + server(r).describe());
            assertTrue(server(r).stat("server_jrmp_dispatches") <= 10, () -> "only registry/DGC on JRMP\n"
                    + server(r).describe());
        }
        Object[] serverOnly = run(jdk, agent(), plain(), calc, cli, "200");
        assertEquals(vanilla, out(serverOnly), "agent on the server only");
        Object[] clientOnly = run(jdk, plain(), agent(), calc, cli, "200");
        assertEquals(vanilla, out(clientOnly), "agent on the client only");
        assertEquals(0, client(clientOnly).stat("calls_remora"), "a vanilla server is spoken to in JRMP");
        assertEquals(0, client(clientOnly).stat("fallbacks"), client(clientOnly)::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void semanticsAreJrmps(Jdk jdk) throws Exception {
        String srv = ShimServer.class.getName();
        String cli = ShimClient.class.getName();
        List<String> vanilla = out(run(jdk, plain(), plain(), srv, cli, "semantics"));
        assertTrue(vanilla.contains("after-unexport java.rmi.NoSuchObjectException: no such object in table"),
                vanilla::toString);
        Object[] r = run(jdk, agent(), agent(), srv, cli, "semantics");
        assertEquals(vanilla, out(r));
        assertTrue(client(r).stat("calls_remora") > 1600, client(r)::describe);
        assertTrue(server(r).stderr().contains("malformed Remora frame"), server(r)::describe);
        assertEquals(vanilla, out(run(jdk, agent("-Dremora.dispatch=inline"), agent(), srv, cli, "semantics")));
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void responseTimeoutIsHonored(Jdk jdk) throws Exception {
        String srv = ShimServer.class.getName();
        String cli = ShimClient.class.getName();
        String timeout = "-Dsun.rmi.transport.tcp.responseTimeout=500";
        List<String> vanilla = out(run(jdk, plain(), plain(timeout), srv, cli, "timeout"));
        assertTrue(vanilla.get(0).contains("SocketTimeoutException"), vanilla::toString);
        Object[] r = run(jdk, agent(), agent(timeout), srv, cli, "timeout");
        assertEquals(vanilla, out(r));
        assertTrue(client(r).stat("calls_remora") >= 2, client(r)::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void serverKilledMidCallFailsPromptlyAndTheNextCallReconnects(Jdk jdk) throws Exception {
        assertEquals(killRun(jdk, plain(), plain()), killRun(jdk, agent(), agent()));
    }

    private static List<String> killRun(Jdk jdk, List<String> serverOpts, List<String> clientOpts) throws Exception {
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        String srv = ShimServer.class.getName();
        try (Jvm server = Jvm.start(jdk, serverOpts, srv, String.valueOf(port), String.valueOf(objectPort))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, ShimClient.class.getName(), String.valueOf(port),
                    String.valueOf(objectPort), "kill")) {
                client.awaitLine("CALLING", 60);
                Thread.sleep(300);
                server.close(); // SIGKILL: no goodbye on the connection
                try (Jvm again = Jvm.start(jdk, serverOpts, srv, String.valueOf(port), String.valueOf(objectPort))) {
                    again.awaitLine("READY", 60);
                    assertEquals(0, client.waitFor(120), client::describe);
                    List<String> lines = client.stdoutLines();
                    assertTrue(lines.get(2).endsWith("promptly"), client::describe);
                    return lines;
                }
            }
        }
    }
}
