package dev.remora.it.async;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Asynchronous calls with real JVMs on JDK 17 and 25: a server declares one-way methods and a future
 * (remora.async, remora.future) and one refused declaration; a client with the agent gets one-way calls in its
 * threads' order and a future, with no setting of its own; a client without it gets the same results synchronously;
 * a server killed with one-way calls and a future pending makes the next call and the future throw RemoteExceptions.
 */
class AsyncIT {
    private static final String LOOPBACK = "-Djava.rmi.server.hostname=127.0.0.1";
    private static final String L = Ledger.class.getName();

    static List<String> server(String... more) {
        List<String> l = new ArrayList<>(List.of(Jvm.javaagent(null), "-Dremora.stats=true", LOOPBACK,
                "-Dremora.async=" + L + "#add," + L + "#boom," + L + "#slow(int)," + L + "#total",
                "-Dremora.future=" + L + "#summary"));
        l.addAll(Arrays.asList(more));
        return l;
    }

    static List<String> client(boolean agent, String... more) {
        return Jvm.rmiOptions(agent, more);
    }

    /** Runs the client session; returns {client, server} after both ended (the server by SIGTERM, for its stats). */
    private static Jvm[] session(Jdk jdk, boolean agent, String mode, String... options) throws Exception {
        return run(jdk, server(options), client(agent, options), AsyncClient.class, mode);
    }

    /** Starts {@link AsyncServer}, then {@code clientMain} with the registry port and {@code mode}; as above. */
    private static Jvm[] run(Jdk jdk, List<String> serverOptions, List<String> clientOptions, Class<?> clientMain,
            String mode) throws Exception {
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        Jvm server = Jvm.start(jdk, serverOptions, AsyncServer.class.getName(), String.valueOf(port),
                String.valueOf(objectPort));
        try {
            server.awaitLine("READY", 60);
        } catch (Exception | Error e) {
            server.close();
            throw e;
        }
        try (Jvm client = Jvm.start(jdk, clientOptions, clientMain.getName(), String.valueOf(port), mode)) {
            int exit = client.waitFor(120);
            assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
            server.stop();
            return new Jvm[] {client, server};
        } finally {
            server.close();
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aClientWithTheAgentMakesTheDeclaredCallsAsynchronous(Jdk jdk) throws Exception {
        jdk.require();
        Jvm[] r = session(jdk, true, "async");
        Jvm client = r[0];
        Jvm server = r[1];
        assertEquals(Arrays.asList("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), client.stdoutLines(),
                client::describe);
        assertEquals(8 * 300 + 1, client.stat("oneway_calls"), client::describe);
        assertEquals(1 + 10, client.stat("future_calls"), client::describe);
        assertEquals(1, client.stat("links_fabric") + client.stat("links_unix"), client::describe);
        assertFalse(client.stderr().contains("one-way candidate"), client::describe); // add is declared
        long runs = client.stat("oneway_batches"); // one-way calls leave in runs over either transport
        assertTrue(runs > 0 && runs < 8 * 300, () -> runs + " runs\n" + client.describe());
        assertTrue(client.stat("calls_remora") >= 8 * 300 + 8 + 4, client::describe);
        assertEquals(1, server.stat("oneway_exceptions"), server::describe);
        assertEquals(1, server.stat("async_refused"), server::describe);
        String err = server.stderr();
        assertTrue(err.contains("remora.async: " + L + "#total() stays synchronous: it returns int"), err);
        assertTrue(err.contains("one-way call " + L + "#boom(java.lang.String) threw java.lang.IllegalStateException:"
                + " kaboom"), err);
    }

    /** Runs {@link ApiClient} in {@code mode}; returns {client, server} after both ended. */
    private static Jvm[] apiSession(Jdk jdk, boolean serverAgent, boolean clientAgent, String mode) throws Exception {
        return run(jdk, serverAgent ? server() : client(false), client(clientAgent), ApiClient.class, mode);
    }

    private static final int API_MANY = ApiClient.MANY_THREADS * ApiClient.MANY_EACH;
    /** What {@link ApiClient} prints when every task runs at once (no agent on one side). */
    private static final List<String> API_SYNCHRONOUS_LINES =
            List.of("MANY-OK", "INT-OK", "VOID-OK", "THROWS-OK", "MISUSE-OK", "SYNC-OK");

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void remoraAsyncSendsTheTasksCallWithoutWaiting(Jdk jdk) throws Exception {
        jdk.require();
        Jvm client = apiSession(jdk, true, true, "agent")[0];
        assertEquals(Arrays.asList("GATE-OK", "MANY-OK", "INT-OK", "VOID-OK", "THROWS-OK", "MISUSE-OK", "SYNC-OK"),
                client.stdoutLines(), client::describe);
        long sent = 1 + API_MANY + 4; // gate, many, total, add, boom, total + 1
        assertEquals(sent, client.stat("async_api_tasks"), client::describe);
        assertEquals(2, client.stat("async_api_sync"), client::describe); // registry.list(), 42
        // summary, add and boom are declared remora.future / remora.async on the server: the task's choice won
        assertEquals(0, client.stat("future_calls"), client::describe);
        assertEquals(0, client.stat("oneway_calls"), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withoutTheAgentRemoraAsyncRunsTheTaskAtOnce(Jdk jdk) throws Exception {
        jdk.require();
        Jvm client = apiSession(jdk, true, false, "plain")[0];
        assertEquals(API_SYNCHRONOUS_LINES, client.stdoutLines(), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void remoraAsyncAgainstAServerWithoutTheAgentRunsTheTaskAtOnce(Jdk jdk) throws Exception {
        jdk.require();
        Jvm client = apiSession(jdk, false, true, "plain-agent")[0];
        assertEquals(API_SYNCHRONOUS_LINES, client.stdoutLines(), client::describe);
        assertEquals(0, client.stat("async_api_tasks"), client::describe);
        assertEquals(API_MANY + 6, client.stat("async_api_sync"), client::describe);
        assertTrue(client.stderr().contains("Remora.async ran a task synchronously"), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void onewayCallsOverSocketsLeaveTogether(Jdk jdk) throws Exception {
        jdk.require();
        Jvm[] r = session(jdk, true, "async", "-Dremora.transport=socket");
        Jvm client = r[0];
        assertEquals(Arrays.asList("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), client.stdoutLines(),
                client::describe);
        assertEquals(8 * 300 + 1, client.stat("oneway_calls"), client::describe);
        long writes = client.stat("oneway_batches");
        assertTrue(writes > 0 && writes < 8 * 300, () -> writes + " writes\n" + client.describe());
        // the ten futures' replies: each that ends while others still run is held back (remora.future.batch)
        assertTrue(r[1].stat("future_reply_batches") >= 1, r[1]::describe);
    }

    /**
     * Back-pressure: at remora.async.maxPending=4 on both sides the eight threads' one-way calls wait for the server
     * over and over (each, once at the limit, until half are confirmed); all still run, in each thread's order.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void onewayCallsWaitAtMaxPendingAndStillRunInOrder(Jdk jdk) throws Exception {
        jdk.require();
        Jvm[] r = session(jdk, true, "async", "-Dremora.async.maxPending=4");
        Jvm client = r[0];
        assertEquals(Arrays.asList("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), client.stdoutLines(),
                client::describe);
        assertEquals(8 * 300 + 1, client.stat("oneway_calls"), client::describe);
    }

    /**
     * Remora's own code failing partway through sending a frame (remora.debug.faults=send on the client: its first call
     * frame, then its first one-way frame): each of those calls goes by JRMP, the one-way one too (no earlier one-way
     * call of its connection was left unconfirmed), and the next ones over a new connection, so that all of one
     * thread's one-way calls run, in its order, and the application sees no error.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aOnewayCallWhoseFrameFailsToLeaveGoesByJrmp(Jdk jdk) throws Exception {
        jdk.require();
        String socket = "-Dremora.transport=socket";
        Jvm[] r = run(jdk, server(socket), client(true, socket, "-Dremora.debug.faults=send"), AsyncClient.class,
                "fault");
        Jvm client = r[0];
        assertEquals(List.of("FAULT-OK"), client.stdoutLines(), client::describe);
        assertEquals(2, client.stat("calls_jrmp"), client::describe); // entries(-1), add(0, 1)
        assertEquals(2, client.stat("fallbacks"), client::describe);
        // add(0, 0) and add(0, 2) are the first calls on their connections, synchronous until the reply declares add
        assertEquals(47, client.stat("oneway_calls"), client::describe);
        assertEquals(3, client.stat("links_unix"), client::describe);
        assertEquals(0, client.stat("oneway_unconfirmed"), client::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void withNothingDeclaredTheClientsStatsNameTheVoidMethodsThatCouldBeOneway(Jdk jdk) throws Exception {
        jdk.require();
        Jvm[] r = session(jdk, true, "sync", "-Dremora.async=", "-Dremora.future=");
        Jvm client = r[0];
        assertEquals(Arrays.asList("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), client.stdoutLines(),
                client::describe);
        assertEquals(0, client.stat("oneway_calls"), client::describe);
        String err = client.stderr();
        // add: 8 x 300 calls; boom (once), open (a few times) and entries (returns int[]) are not named
        assertTrue(err.contains("[remora] stats: one-way candidate " + L + "#add(int,int): 2400 calls, "), err);
        assertEquals(1, err.split("one-way candidate", -1).length - 1, err);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aClientWithoutTheAgentStaysSynchronousWithTheSameResults(Jdk jdk) throws Exception {
        jdk.require();
        Jvm[] r = session(jdk, false, "sync");
        Jvm client = r[0];
        Jvm server = r[1];
        assertEquals(Arrays.asList("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), client.stdoutLines(),
                client::describe);
        assertEquals(0, server.stat("oneway_exceptions"), server::describe);
        assertTrue(server.stat("server_jrmp_dispatches") >= 8 * 300 + 8 + 4, server::describe);
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aServerKilledWithOnewayCallsPendingMakesTheNextCallThrow(Jdk jdk) throws Exception {
        jdk.require();
        int port = Jvm.freePort();
        int objectPort = Jvm.freePort();
        Path killed = Files.createTempFile("remora-async-killed", "");
        Files.delete(killed);
        try (Jvm server = Jvm.start(jdk, server(), AsyncServer.class.getName(), String.valueOf(port),
                String.valueOf(objectPort))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, client(true), AsyncClient.class.getName(), String.valueOf(port), "kill",
                    killed.toString())) {
                client.awaitLine("PENDING", 60);
                server.close(); // SIGKILL, as the machine or the process dying would
                Files.createFile(killed);
                int exit = client.waitFor(120);
                assertEquals(0, exit, client::describe);
                List<String> out = client.stdoutLines();
                assertEquals(4, out.size(), client::describe);
                assertTrue(out.get(1).startsWith("LOST-OK java.rmi.UnmarshalException: Error unmarshaling return"
                        + " header"), client::describe);
                assertTrue(out.get(1).contains("one-way call(s) to") && out.get(1).contains("were not confirmed"),
                        client::describe);
                assertTrue(out.get(2).startsWith("FUTURE-DEAD-OK java.rmi."), client::describe);
                assertTrue(out.get(3).startsWith("API-DEAD-OK java.rmi."), client::describe);
                long lost = client.stat("oneway_unconfirmed");
                assertTrue(lost >= 4 && lost <= 5, () -> lost + "\n" + client.describe());
            }
        } finally {
            Files.deleteIfExists(killed);
        }
    }
}
