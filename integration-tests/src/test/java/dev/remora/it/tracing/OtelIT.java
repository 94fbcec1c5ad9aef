package dev.remora.it.tracing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.it.Jvm;
import dev.remora.it.Jvm.Jdk;
import dev.remora.it.app.CalcClient;
import dev.remora.it.app.CalcServer;
import dev.remora.it.async.AsyncClient;
import dev.remora.it.async.AsyncServer;
import dev.remora.it.async.Ledger;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * OpenTelemetry's Java agent (written by others) beside Remora's, on both JVMs of {@link CalcServer} and
 * {@link CalcClient}, in either order on the command line: the calls go on Remora's path, and every server span the
 * OpenTelemetry agent records without Remora (one per remote call, callbacks included, each the child of the
 * caller's client span) it records with Remora too (remora.tracing). Without the trace context in Remora's frames the
 * servers recorded no span for Remora's calls.
 */
class OtelIT {
    /** One span of the logging-otlp exporter's JSON lines: trace, span, parent (or ""), name, kind. */
    private static final Pattern SPAN = Pattern.compile("\\{\"traceId\":\"(\\w+)\",\"spanId\":\"(\\w+)\""
            + "(?:,\"parentSpanId\":\"(\\w*)\")?[^{]*?\"name\":\"([^\"]*)\",\"kind\":(\\d)");
    private static final int SERVER = 2;
    private static final int CLIENT = 3;

    private record Span(String trace, String id, String parent, String name, int kind) {
    }

    private static Path otelAgent() {
        return Jvm.requiredFile("it.otelAgent", "target/otel/opentelemetry-javaagent.jar",
                "mvn -pl integration-tests verify copies it (maven-dependency-plugin, pre-integration-test)");
    }

    private static List<String> otel() {
        return List.of("-javaagent:" + otelAgent(), "-Dotel.traces.exporter=logging-otlp",
                "-Dotel.metrics.exporter=none", "-Dotel.logs.exporter=none");
    }

    private static List<String> options(boolean remora, boolean remoraFirst) {
        List<String> otel = otel();
        List<String> l = new ArrayList<>();
        if (remora && remoraFirst) {
            l.add(Jvm.javaagent(null));
            l.addAll(otel);
            l.addAll(Jvm.rmiOptions(false, "-Dremora.stats=true"));
        } else {
            l.addAll(otel);
            l.addAll(Jvm.rmiOptions(remora));
        }
        return l;
    }

    private static List<Span> spans(String output) {
        List<Span> l = new ArrayList<>();
        Matcher m = SPAN.matcher(output);
        while (m.find()) {
            l.add(new Span(m.group(1), m.group(2), m.group(3) == null ? "" : m.group(3), m.group(4),
                    Integer.parseInt(m.group(5))));
        }
        return l;
    }

    /** {client, server}, both exited (the server by SIGTERM, after which the agent has written its spans). */
    private static Jvm[] run(Jdk jdk, boolean remora, boolean remoraFirst) throws Exception {
        int port = Jvm.freePort();
        List<String> opts = options(remora, remoraFirst);
        try (Jvm server = Jvm.start(jdk, opts, CalcServer.class.getName(), String.valueOf(port))) {
            server.awaitLine("READY", 120);
            try (Jvm client = Jvm.start(jdk, opts, CalcClient.class.getName(), String.valueOf(port), "3")) {
                assertEquals(0, client.waitFor(180), () -> client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                return new Jvm[] {client, server};
            }
        }
    }

    /** Server spans (of both JVMs: callbacks are served by the client) whose parent is a client span of their trace. */
    private static Map<String, Integer> parentedServerSpans(Jvm[] r, List<String> unparented) throws Exception {
        List<Span> all = new ArrayList<>(spans(r[0].stderr()));
        all.addAll(spans(r[1].stderr()));
        Map<String, Span> byId = new HashMap<>();
        for (Span s : all) {
            byId.put(s.id(), s);
        }
        Map<String, Integer> byName = new HashMap<>();
        for (Span s : all) {
            if (s.kind() == SERVER) {
                Span p = byId.get(s.parent());
                if (p != null && p.kind() == CLIENT && p.trace().equals(s.trace())) {
                    byName.merge(s.name().replaceAll("\\$\\$Lambda[^/]*/0x[0-9a-f]+", "\\$\\$Lambda"), 1, Integer::sum);
                } else {
                    unparented.add(s.toString());
                }
            }
        }
        return byName;
    }

    @ParameterizedTest
    @EnumSource(Jdk.class)
    void serverSpansOfRemorasCallsJoinTheCallersTraces(Jdk jdk) throws Exception {
        Jvm[] plain = run(jdk, false, false);
        List<String> unparented = new ArrayList<>();
        Map<String, Integer> expected = parentedServerSpans(plain, unparented);
        assertTrue(expected.getOrDefault("dev.remora.it.app.CalcServer/add", 0) >= 200,
                () -> "OpenTelemetry's agent alone: " + expected + "\n" + plain[1].describe());
        assertTrue(unparented.isEmpty(), unparented::toString);
        // Plainly, the agent's server advice (on every public method of a class implementing Remote) also fires in
        // DGCImpl_Stub.dirty, which the JDK calls on the server's connection thread as it unmarshals callback's stub
        // argument, after the agent's context call: that span takes the context meant for callback, which then
        // records none. Remora hands the context over after the arguments are read, so callback records its span.
        Integer dirty = expected.remove("sun.rmi.transport.DGCImpl_Stub/dirty");
        if (dirty != null) {
            expected.merge("dev.remora.it.app.CalcServer/callback", dirty, Integer::sum);
        }
        for (boolean remoraFirst : new boolean[] {false, true}) {
            Jvm[] r = run(jdk, true, remoraFirst);
            String both = r[0].describe() + "\nserver:\n" + r[1].describe();
            assertEquals(plain[0].stdoutLines(), r[0].stdoutLines(), both);
            assertTrue(r[0].stat("calls_remora") >= 200, both);
            assertEquals(0, r[0].stat("calls_jrmp"), both);
            assertEquals(0, r[0].stat("fallbacks"), both);
            assertTrue(r[0].stat("trace_contexts_sent") >= 224, both);
            assertTrue(r[1].stat("trace_contexts_received") >= 224, both);
            List<String> orphans = new ArrayList<>();
            assertEquals(expected, parentedServerSpans(r, orphans), (remoraFirst ? "Remora's agent first" :
                    "OpenTelemetry's agent first") + "\n" + both);
            assertTrue(orphans.isEmpty(), orphans::toString);
        }
    }

    /**
     * One-way calls and futures ({@code remora.async}, {@code remora.future}: frames of their own kinds and lanes, run
     * later or on pool threads) carry the context too: {@link AsyncClient}'s session against {@link AsyncServer},
     * both agents on both JVMs; every server span is the child of a client span, one per one-way call and future.
     */
    @ParameterizedTest
    @EnumSource(Jdk.class)
    void oneWayCallsAndFuturesCarryTheContextToo(Jdk jdk) throws Exception {
        jdk.require();
        String l = Ledger.class.getName();
        List<String> serverOptions = new ArrayList<>(otel());
        serverOptions.addAll(Jvm.rmiOptions(true, "-Dremora.async=" + l + "#add," + l + "#boom," + l + "#slow(int),"
                + l + "#total", "-Dremora.future=" + l + "#summary"));
        List<String> clientOptions = new ArrayList<>(otel());
        clientOptions.addAll(Jvm.rmiOptions(true));
        int port = Jvm.freePort();
        Jvm[] r;
        try (Jvm server = Jvm.start(jdk, serverOptions, AsyncServer.class.getName(), String.valueOf(port),
                String.valueOf(Jvm.freePort()))) {
            server.awaitLine("READY", 120);
            try (Jvm client = Jvm.start(jdk, clientOptions, AsyncClient.class.getName(), String.valueOf(port),
                    "async")) {
                assertEquals(0, client.waitFor(180), () -> client.describe() + "\nserver:\n" + server.describe());
                server.stop();
                r = new Jvm[] {client, server};
            }
        }
        String both = r[0].describe() + "\nserver:\n" + r[1].describe();
        assertEquals(List.of("ORDER-OK", "BOOM-OK", "FUTURE-OK", "FUTURES-OK", "TOTAL-OK"), r[0].stdoutLines(), both);
        long oneway = r[0].stat("oneway_calls");
        long futures = r[0].stat("future_calls");
        assertEquals(8 * 300 + 1, oneway, both);
        assertEquals(1 + 10, futures, both);
        List<String> orphans = new ArrayList<>();
        Map<String, Integer> spans = parentedServerSpans(r, orphans);
        assertTrue(orphans.isEmpty(), orphans::toString);
        int adds = 0;
        int total = 0;
        for (Map.Entry<String, Integer> e : spans.entrySet()) {
            total += e.getValue();
            adds += e.getKey().endsWith("/add") ? e.getValue() : 0;
        }
        assertEquals(8 * 300, adds, () -> spans + "\n" + both);
        assertTrue(total >= oneway + futures, () -> spans + "\n" + both);
    }
}
