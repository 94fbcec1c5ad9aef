package dev.remora.it.fast;

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
 * remora.serializer=fast with real JVMs on JDK 17 and 25: the Calc session ({@link CalcClient}: values, graphs,
 * exceptions, callbacks, remote objects, threads) and {@link FastClient} (the same types again and again) print
 * exactly what they print on plain RMI, every call goes on Remora's protocol, and the type descriptors counted show
 * the per-connection cache at work (typecache=connection describes a class once per connection and direction,
 * typecache=call on every call). Peers configured with different serializers still agree.
 */
class FastIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";
    private static final String CALLS = "200";

    private static List<String> agent(String... props) {
        List<String> l = new ArrayList<>();
        l.add(Jvm.javaagent(null));
        l.add("-Dremora.stats=true");
        l.add("-Dremora.transport=socket");
        l.add(LOOPBACK);
        l.addAll(Arrays.asList(props));
        return l;
    }

    /** A server and a client run to completion: {client stdout, client, server}. */
    private static Object[] run(Jdk jdk, List<String> serverOpts, List<String> clientOpts) throws Exception {
        return run(jdk, serverOpts, clientOpts, CalcClient.class.getName(), CALLS);
    }

    private static Object[] run(Jdk jdk, List<String> serverOpts, List<String> clientOpts, String clientMain,
            String rounds) throws Exception {
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, serverOpts, CalcServer.class.getName(), String.valueOf(port),
                String.valueOf(objectPort))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, clientMain, String.valueOf(port), rounds)) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Object[] {client.stdoutLines(), client, server};
            }
        }
    }

    @SuppressWarnings("unchecked")
    private static List<String> out(Object[] r) {
        return (List<String>) r[0];
    }

    private static Jvm client(Object[] r) {
        return (Jvm) r[1];
    }

    private static Jvm server(Object[] r) {
        return (Jvm) r[2];
    }

    private static void allOnRemora(Object[] r) throws Exception {
        String last = out(r).get(out(r).size() - 1);
        long calls = Long.parseLong(last.substring("calls ".length()));
        assertEquals(calls, client(r).stat("calls_remora"), () -> "every Calc call on Remora's protocol\n"
                + client(r).describe());
        assertEquals(0, client(r).stat("calls_jrmp"), client(r)::describe);
        assertEquals(0, client(r).stat("fallbacks"), client(r)::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void repeatedTypesAreDescribedOncePerConnection(Jdk jdk) throws Exception {
        String cli = FastClient.class.getName();
        List<String> plain = List.of(LOOPBACK);
        List<String> vanilla = out(run(jdk, plain, plain, cli, "20"));

        Object[] conn = run(jdk, agent("-Dremora.serializer=fast"), agent("-Dremora.serializer=fast"), cli, "20");
        assertEquals(vanilla, out(conn), "typecache=connection");
        allOnRemora(conn);
        long connTypes = client(conn).stat("type_descriptors");
        long calls = client(conn).stat("calls_remora");
        assertTrue(connTypes > 0 && connTypes < 40, () -> "each class once per connection: " + connTypes + " for "
                + calls + " calls\n" + client(conn).describe());

        Object[] call = run(jdk, agent("-Dremora.serializer=fast", "-Dremora.typecache=call",
                "-Dremora.dispatch=inline"), agent("-Dremora.serializer=fast", "-Dremora.typecache=call"), cli, "20");
        assertEquals(vanilla, out(call), "typecache=call, inline dispatch");
        allOnRemora(call);
        long callTypes = client(call).stat("type_descriptors");
        assertTrue(callTypes > 100, () -> "call mode describes types on every call: " + callTypes + " vs "
                + connTypes);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void calcSessionIsIdenticalWithTheFastSerializer(Jdk jdk) throws Exception {
        List<String> vanilla = out(run(jdk, List.of(LOOPBACK), List.of(LOOPBACK)));

        Object[] conn = run(jdk, agent("-Dremora.serializer=fast"), agent("-Dremora.serializer=fast"));
        assertEquals(vanilla, out(conn), "typecache=connection");
        allOnRemora(conn);
        long clientTypes = client(conn).stat("type_descriptors");
        long serverTypes = server(conn).stat("type_descriptors");
        assertTrue(clientTypes > 0 && serverTypes > 0, () -> "descriptors counted on both sides\n"
                + client(conn).describe() + server(conn).describe());
        long calls = client(conn).stat("calls_remora");
        assertTrue(clientTypes < calls / 4, () -> "types sent once per connection, not per call: " + clientTypes
                + " for " + calls + " calls\n" + client(conn).describe());

        // mismatched configurations work: each side reads what the frame flag says
        Object[] mixed = run(jdk, agent("-Dremora.serializer=jdk"), agent("-Dremora.serializer=fast"));
        assertEquals(vanilla, out(mixed), "server jdk, client fast");
        allOnRemora(mixed);
        assertTrue(client(mixed).stat("type_descriptors") > 0, client(mixed)::describe);
        assertEquals(0, server(mixed).stat("type_descriptors"), () -> "the jdk side writes JDK serialization\n"
                + server(mixed).describe());
    }
}
