package dev.remora.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.remora.it.Jvm.Jdk;
import dev.remora.it.agents.RetransformingAgent;
import dev.remora.it.app.CalcClient;
import dev.remora.it.app.CalcServer;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;
import java.util.Map;
import java.util.jar.Attributes;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.zip.ZipFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * The foundation's promises, with real server and client JVMs on JDK 17 and 25: the agent changes no result, its
 * hooks see the calls, broken advice leaves the application correct, bad configuration is named and harmless,
 * a second attach is refused, JDK tools are left alone, and a JDK 25 start prints nothing on Remora's behalf.
 */
class AgentIT {
    private static final int ROUNDS = 200;
    private static final Map<Jdk, List<String>> VANILLA = new ConcurrentHashMap<>();

    /** A woven-class cache of each test's own (remora.cache.dir), empty at its start. */
    @TempDir
    Path cache;

    /** What the client prints against a server, each side with its own JVM options. */
    static final class Run {
        final List<String> clientOut;
        final Jvm server;
        final Jvm client;

        Run(List<String> clientOut, Jvm server, Jvm client) {
            this.clientOut = clientOut;
            this.server = server;
            this.client = client;
        }
    }

    static Run run(Jdk jdk, List<String> serverOpts, List<String> clientOpts) throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, serverOpts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            try (Jvm client = Jvm.start(jdk, clientOpts, CalcClient.class.getName(), String.valueOf(port),
                    String.valueOf(ROUNDS))) {
                int exit = client.waitFor(120);
                assertEquals(0, exit, () -> "client failed\n" + client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Run(client.stdoutLines(), server, client);
            }
        }
    }

    static List<String> vanilla(Jdk jdk) throws Exception {
        List<String> v = VANILLA.get(jdk);
        if (v == null) {
            v = run(jdk, List.of(), List.of()).clientOut;
            VANILLA.put(jdk, v);
        }
        return v;
    }

    static List<String> agent(String... props) {
        List<String> l = new ArrayList<>();
        l.add(Jvm.javaagent(null));
        l.add("-Dremora.stats=true");
        l.addAll(Arrays.asList(props));
        return l;
    }

    static long expectedCalls(List<String> out) {
        String last = out.get(out.size() - 1);
        assertTrue(last.startsWith("calls "), last);
        return Long.parseLong(last.substring(6));
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void agentOnBothSidesChangesNoResultAndSeesEveryCall(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        Run r = run(jdk, agent("-Dremora.stats.streams=true"), agent("-Dremora.stats.streams=true"));
        assertEquals(expected, r.clientOut);
        long calls = expectedCalls(r.clientOut);
        assertEquals(calls, r.client.stat("calls_remora") + r.client.stat("calls_jrmp"),
                () -> "every client call passes the hook\n" + r.client.describe());
        assertTrue(r.server.stat("exports") >= 2, r.server::describe);
        assertTrue(r.server.stat("accepts") >= 1, r.server::describe);
        // the counting-only stream hooks are installed under remora.stats.streams=true and saw JRMP's marshalling
        assertTrue(r.client.stat("stream_writes") > 0 && r.server.stat("stream_reads") > 0, r.client::describe);
        // and only then: remora.stats alone (what compare.sh runs with) leaves the JDK's streams untouched
        Run plain = run(jdk, agent(), agent());
        assertEquals(expected, plain.clientOut);
        assertEquals(0, plain.client.stat("stream_writes") + plain.server.stat("stream_reads"), plain.client::describe);
        assertEquals(calls, plain.client.stat("calls_remora") + plain.client.stat("calls_jrmp"));
        assertEquals(0, r.client.stat("advice_errors"));
        assertEquals(0, r.server.stat("advice_errors"));
    }

    /**
     * Byte Buddy is nested in the agent jar (one entry, not 3,087 that every JVM's start would read): a JVM whose
     * woven-class cache is empty weaves with it, extracted for the purpose, and a later JVM reads the cache and
     * extracts nothing.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void anEmptyWovenClassCacheWeavesWithTheNestedByteBuddy(Jdk jdk) throws Exception {
        String dir = "-Dremora.cache.dir=" + cache;
        Run miss = run(jdk, agent(dir, "-Dremora.log=debug"), agent(dir, "-Dremora.log=debug"));
        assertEquals(vanilla(jdk), miss.clientOut);
        String err = miss.server.stderr(); // the server starts first: it weaves, and its client reads the cache
        assertTrue(err.contains("Byte Buddy's classes extracted to"), err);
        assertTrue(err.contains("instrumented sun.rmi.server.UnicastRef"), err);
        assertFalse(err.contains("instrumenting sun.rmi.server.UnicastRef from the cache"), err);
        for (Jvm j : List.of(miss.server, miss.client)) {
            assertEquals(0, j.stat("fallbacks"), j::describe);
            assertEquals(0, j.stat("advice_errors"), j::describe);
        }
        assertEquals(expectedCalls(miss.clientOut), miss.client.stat("calls_remora"), miss.client::describe);
        Run hit = run(jdk, agent(dir, "-Dremora.log=debug"), agent(dir, "-Dremora.log=debug"));
        assertEquals(vanilla(jdk), hit.clientOut);
        for (Jvm j : List.of(hit.server, hit.client)) {
            String e = j.stderr();
            assertTrue(e.contains("instrumenting sun.rmi.server.UnicastRef from the cache"), e);
            assertFalse(e.contains("Byte Buddy"), e);
        }
        assertEquals(expectedCalls(hit.clientOut), hit.client.stat("calls_remora"), hit.client::describe);
    }

    /** Byte Buddy cannot be copied out to weave: the JVM runs plain RMI and says what to change. */
    @Test
    void anUnwritableTemporaryDirectoryLeavesRmiPlain() throws Exception {
        List<String> opts = agent("-Dremora.cache.dir=" + cache, "-Djava.io.tmpdir=/nonexistent/remora-it");
        Run r = run(Jdk.JDK17, opts, opts);
        assertEquals(vanilla(Jdk.JDK17), r.clientOut);
        String err = r.server.stderr();
        assertTrue(err.contains("give the JVM a writable -Djava.io.tmpdir"), err);
        assertTrue(r.server.stat("fallbacks") > 0, r.server::describe);
        assertEquals(0, r.client.stat("calls_remora"), r.client::describe);
    }

    @Test
    void theAgentJarKeepsByteBuddyNested() throws IOException {
        try (ZipFile jar = new ZipFile(Jvm.agentJar().toFile())) {
            assertTrue(jar.getEntry("META-INF/remora/byte-buddy.jar") != null, "nested Byte Buddy");
            assertEquals(0, jar.stream().filter(e -> e.getName().contains("/bytebuddy/")
                    || e.getName().startsWith("dev/remora/agent/AdviceWeaver")).count(), "Byte Buddy outside it");
            assertTrue(jar.size() < 600, () -> jar.size() + " entries");
            // stored, not deflated: an RMI JVM loads about 200 of its classes, and inflating them costs CPU at start
            List<String> deflated = jar.stream().filter(e -> e.getMethod() != java.util.zip.ZipEntry.STORED)
                    .map(java.util.zip.ZipEntry::getName).collect(java.util.stream.Collectors.toList());
            assertEquals(0, deflated.size(), () -> deflated.size() + " entries deflated, e.g. "
                    + deflated.subList(0, Math.min(5, deflated.size())));
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void agentOnOneSideOnly(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        assertEquals(expected, run(jdk, agent(), List.of()).clientOut, "agent on the server only");
        assertEquals(expected, run(jdk, List.of(), agent()).clientOut, "agent on the client only");
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void brokenAdviceLeavesTheApplicationCorrect(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        Run r = run(jdk, agent("-Dremora.debug.faults=advice"), agent("-Dremora.debug.faults=advice"));
        assertEquals(expected, r.clientOut);
        assertTrue(r.client.stat("advice_errors") > 0, r.client::describe);
        assertTrue(r.server.stat("advice_errors") > 0, r.server::describe);
        String err = r.client.stderr();
        assertEquals(1, count(err, "a hook failed"), () -> "reported once, not per call\n" + err);
    }

    /**
     * Remora's serializer failing as a bug of its own would (remora.debug.faults=serializer): on the server, every
     * result and exception is written again by JDK serialization on Remora's path; on the client, every call with
     * arguments to write goes by JRMP. Either way the application gets its results, and each side says why once and
     * counts every time.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aFailingSerializerLeavesItsValuesToJdkSerialization(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        String fault = "-Dremora.debug.faults=serializer";
        Run server = run(jdk, agent(fault), agent());
        assertEquals(expected, server.clientOut);
        String err = server.server.stderr();
        assertEquals(1, count(err, "[remora] Remora's serializer could not write the result"), () -> "once\n" + err);
        assertEquals(1, count(err, "[remora] Remora's serializer could not write a call's"), () -> "once\n" + err);
        assertTrue(server.server.stat("fallbacks") > 0, server.server::describe); // each counted (stats lines)
        assertEquals(expectedCalls(server.clientOut), server.client.stat("calls_remora"), server.client::describe);

        Run client = run(jdk, agent(), agent(fault));
        assertEquals(expected, client.clientOut);
        String cerr = client.client.stderr();
        assertEquals(1, count(cerr, "[remora] Remora could not start a call"), () -> "said once\n" + cerr);
        assertTrue(client.client.stat("calls_jrmp") > 0, client.client::describe); // those with arguments to write
        assertEquals(client.client.stat("calls_jrmp"), client.client.stat("fallbacks"), client.client::describe);
    }

    /**
     * Remora's own code failing partway through sending a call's frame (remora.debug.faults=send on the client: its
     * first call frame, of which the server got the head): that call goes by JRMP, the server is not left waiting for
     * the rest, the next calls go on Remora's path over a new connection, and the reason is said once and counted.
     * FabricIT has the same over fabric.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aCallWhoseFrameFailsToLeaveGoesByJrmp(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        Run r = run(jdk, agent("-Dremora.transport=socket"),
                agent("-Dremora.transport=socket", "-Dremora.debug.faults=send"));
        assertEquals(expected, r.clientOut);
        String err = r.client.stderr();
        assertEquals(1, count(err, "[remora] Remora could not send a frame to "), () -> "said once\n" + err);
        assertTrue(err.contains(NOT_SENT), err);
        assertEquals(1, r.client.stat("calls_jrmp"), r.client::describe);
        assertEquals(1, r.client.stat("fallbacks"), r.client::describe);
        assertEquals(expectedCalls(r.clientOut) - 1, r.client.stat("calls_remora"), r.client::describe);
        // the connection that failed, its replacement, and the one the server's callbacks came in on; and a spare
        // for each of the session's pool threads that called while the others were in calls (remora.connections)
        long sockets = r.client.stat("links_unix"); // one host: the socket transport on Unix domain sockets
        assertTrue(sockets >= 3 && sockets <= 6, r.client::describe);
        assertEquals(0, r.client.stat("links_socket"), r.client::describe);
        // the server read the head of a frame and then the end of its connection: nothing to report
        assertEquals(List.of(), r.server.stderr().lines().filter(l -> !l.startsWith("[remora] stats"))
                .collect(java.util.stream.Collectors.toList()), r.server::describe);
    }

    /**
     * Between two JVMs of one host the socket transport runs on a Unix domain socket, and on loopback TCP with
     * remora.socket.unix=false; the same results either way, and nothing said.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void oneHostsSocketTransportTakesAUnixDomainSocketUnlessTurnedOff(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        Run unix = run(jdk, agent("-Dremora.transport=socket"), agent("-Dremora.transport=socket"));
        Run tcp = run(jdk, agent("-Dremora.transport=socket", "-Dremora.socket.unix=false"),
                agent("-Dremora.transport=socket", "-Dremora.socket.unix=false"));
        for (Run r : List.of(unix, tcp)) {
            assertEquals(expected, r.clientOut);
            assertEquals(expectedCalls(r.clientOut), r.client.stat("calls_remora"), r.client::describe);
            for (Jvm j : List.of(r.client, r.server)) {
                assertEquals(0, j.stat("fallbacks"), j::describe);
                assertEquals(List.of(), j.stderr().lines().filter(l -> !l.startsWith("[remora] stats"))
                        .collect(java.util.stream.Collectors.toList()), j::describe);
            }
        }
        assertTrue(unix.client.stat("links_unix") >= 1, unix.client::describe);
        assertEquals(0, unix.client.stat("links_socket"), unix.client::describe);
        assertTrue(tcp.client.stat("links_socket") >= 1, tcp.client::describe);
        assertEquals(0, tcp.client.stat("links_unix"), tcp.client::describe);
        assertEquals(unix.client.stat("links_unix"), unix.server.stat("links_unix"), unix.server::describe);
    }

    /** What a JVM says, once, when it leaves a call whose frame did not leave whole (remora.debug.faults=send). */
    public static final String NOT_SENT = "whole (java.lang.IllegalStateException: fault injected while sending a frame"
            + " (remora.debug.faults=send)); its connection is closed; such calls go by JRMP";

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void badValueIsNamedAndTheJvmRunsPlainRmi(Jdk jdk) throws Exception {
        List<String> expected = vanilla(jdk);
        Run r = run(jdk, List.of(), agent("-Dremora.transport=carrier-pigeon"));
        assertEquals(expected, r.clientOut);
        String err = r.client.stderr();
        assertTrue(err.contains("remora.transport=carrier-pigeon: 'carrier-pigeon' is not one of"), err);
        assertTrue(err.contains("this JVM runs plain RMI"), err);
        assertEquals(-1, r.client.stat("calls_jrmp"), "the agent stayed off: no stats");
    }

    @Test
    void strictModeExitsOnABadValue() throws Exception {
        try (Jvm j = Jvm.start(Jdk.JDK17, agent("-Dremora.strict=true", "-Dremora.serializer=bogus"),
                CalcClient.class.getName(), "1", "1")) {
            assertEquals(78, j.waitFor(60), j::describe);
            assertTrue(j.stderr().contains("remora.serializer=bogus"), j::describe);
        }
    }

    @Test
    void secondAgentIsRefused() throws Exception {
        List<String> opts = new ArrayList<>(agent());
        opts.add(0, Jvm.javaagent(null));
        List<String> expected = vanilla(Jdk.JDK17);
        Run r = run(Jdk.JDK17, List.of(), opts);
        assertEquals(expected, r.clientOut);
        assertTrue(r.client.stderr().contains("already installed"), r.client::describe);
        assertEquals(expectedCalls(r.clientOut), r.client.stat("calls_remora") + r.client.stat("calls_jrmp"),
                "the first agent still counts each call exactly once");
    }

    @Test
    void jdkToolsAreLeftAlone() throws Exception {
        try (Jvm j = Jvm.start(Jdk.JDK17, agent("-Dremora.log=debug"), "com.sun.tools.javac.Main", "-version")) {
            assertEquals(0, j.waitFor(60), j::describe);
            String err = j.stderr();
            assertTrue(err.contains("not instrumenting the JDK tool com.sun.tools.javac.Main"), err);
            assertFalse(err.contains("instrumented java.io"), err);
        }
    }

    /**
     * JDK 22+ prints a restricted-method warning when code on the class path loads a native library without native
     * access; the agent enables it for the class path when its router is made, having read the command line
     * ({@code /proc/self/cmdline}) for a policy of the user's own. A JVM pair that loads libfabric at its first RMI use
     * prints nothing but Remora's stats.
     */
    @Test
    void loadingLibfabricOnJdk25PrintsNoWarning() throws Exception {
        Run r = run(Jdk.JDK25, agent("-Dremora.fabric.upgrade=false"), agent("-Dremora.fabric.upgrade=false"));
        assertEquals(vanilla(Jdk.JDK25), r.clientOut);
        assumeTrue(r.client.stat("links_fabric") > 0, () -> "libfabric not usable here\n" + r.client.describe());
        for (Jvm j : List.of(r.server, r.client)) {
            assertFalse(j.stderr().contains("WARNING"), j::describe);
            assertEquals(0, j.stat("fallbacks"), j::describe);
        }
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void aNormalStartPrintsNothing(Jdk jdk) throws Exception {
        Run r = run(jdk, List.of(Jvm.javaagent(null)), List.of(Jvm.javaagent(null)));
        assertEquals(vanilla(jdk), r.clientOut);
        assertEquals("", r.client.stderr(), "client stderr");
        assertEquals("", r.server.stderr(), "server stderr");
    }

    @Test
    void attachToARunningServer() throws Exception {
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(Jdk.JDK17, List.of("-Djdk.attach.allowAttachSelf=false"),
                CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 60);
            com.sun.tools.attach.VirtualMachine vm =
                    com.sun.tools.attach.VirtualMachine.attach(String.valueOf(server.pid()));
            try {
                vm.loadAgent(Jvm.agentJar().toString(), "remora.stats=true");
            } finally {
                vm.detach();
            }
            try (Jvm client = Jvm.start(Jdk.JDK17, List.of(), CalcClient.class.getName(), String.valueOf(port),
                    String.valueOf(ROUNDS))) {
                assertEquals(0, client.waitFor(120), client::describe);
                assertEquals(vanilla(Jdk.JDK17), client.stdoutLines());
            }
            server.stop();
            assertTrue(server.stat("server_jrmp_dispatches") >= 2 * ROUNDS,
                    () -> "hooks installed by attach saw the calls\n" + server.describe());
        }
    }

    /**
     * Another agent that retransforms the hooked classes once Remora's class-load transformer is gone (an APM or a
     * profiler attached later) is handed them with Remora's hooks, and they keep them: the JVM starts a
     * retransformation from what a transformer registered for class loads only made of the class.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void anotherAgentsRetransformationKeepsTheHooks(Jdk jdk, @TempDir Path dir) throws Exception {
        Path jar = dir.resolve("retransforming-agent.jar");
        Manifest manifest = new Manifest();
        manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
        manifest.getMainAttributes().putValue("Agent-Class", RetransformingAgent.class.getName());
        manifest.getMainAttributes().putValue("Can-Retransform-Classes", "true");
        String entry = RetransformingAgent.class.getName().replace('.', '/') + ".class";
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar), manifest);
                InputStream in = RetransformingAgent.class.getClassLoader().getResourceAsStream(entry)) {
            out.putNextEntry(new JarEntry(entry));
            in.transferTo(out);
            out.closeEntry();
        }
        List<String> hooked = List.of("sun.rmi.server.UnicastRef", "sun.rmi.server.UnicastServerRef",
                "sun.rmi.transport.tcp.TCPTransport$ConnectionHandler");
        int port = Jvm.freePort();
        try (Jvm server = Jvm.start(jdk, agent("-Dremora.log=debug"), CalcServer.class.getName(),
                String.valueOf(port))) {
            server.awaitLine("READY", 60);
            for (int i = 0; i < 2; i++) { // the first loads the accept path's class, the last hooked one
                if (i == 1) {
                    assertTrue(server.stderr().contains("the class-load transformer is removed"), server::describe);
                    com.sun.tools.attach.VirtualMachine vm =
                            com.sun.tools.attach.VirtualMachine.attach(String.valueOf(server.pid()));
                    try {
                        vm.loadAgent(jar.toString(), String.join(",", hooked));
                    } finally {
                        vm.detach();
                    }
                    server.awaitLine("RETRANSFORMED 3", 60);
                    for (String c : hooked) {
                        assertTrue(server.stdoutLines().contains("retransformed " + c + " hooks=true"),
                                () -> c + " handed to the other agent with Remora's hooks\n" + server.describe());
                    }
                }
                try (Jvm client = Jvm.start(jdk, agent(), CalcClient.class.getName(), String.valueOf(port),
                        String.valueOf(ROUNDS))) {
                    assertEquals(0, client.waitFor(120), client::describe);
                    assertEquals(vanilla(jdk), client.stdoutLines());
                    long calls = expectedCalls(client.stdoutLines());
                    assertEquals(calls, client.stat("calls_remora"),
                            () -> "every call on Remora's path, so the server's hooks answered\n" + client.describe()
                                    + "\nserver:\n" + server.describe());
                }
            }
            server.stop();
            assertTrue(server.stat("accepts") >= 2, server::describe);
            assertEquals(0, server.stat("advice_errors"), server::describe);
        }
    }

    private static int count(String s, String needle) {
        return s.split(java.util.regex.Pattern.quote(needle), -1).length - 1;
    }
}
