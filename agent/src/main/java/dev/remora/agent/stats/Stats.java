package dev.remora.agent.stats;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Supplier;

/**
 * Remora's counters for one JVM. Hot-path counters are {@link LongAdder}s (no contention between calling threads);
 * fallbacks are counted per reason, the reason text being the one line the log printed once.
 */
public final class Stats {
    /** Client calls that Remora carried on its own protocol. */
    public final LongAdder callsRemora = new LongAdder();
    /** Client calls that went over JRMP (seen by the client hook and left to the JDK). */
    public final LongAdder callsJrmp = new LongAdder();
    /** Calls that arrived over JRMP at this JVM's exported objects. */
    public final LongAdder serverJrmpDispatches = new LongAdder();
    /** Remote objects exported in this JVM. */
    public final LongAdder exports = new LongAdder();
    /** Connections seen on the JRMP accept path. */
    public final LongAdder accepts = new LongAdder();
    /** ObjectOutputStream.writeObject/writeUnshared calls seen. */
    public final LongAdder streamWrites = new LongAdder();
    /** ObjectInputStream.readObject/readUnshared calls seen. */
    public final LongAdder streamReads = new LongAdder();
    /** remora.oos=fast: application streams opened in Remora's format (writers, and readers that met its header). */
    public final LongAdder fastStreams = new LongAdder();
    /** Exceptions thrown inside advice and suppressed (the JDK path ran instead). */
    public final LongAdder adviceErrors = new LongAdder();
    /** Bytes Remora wrote and read on its own connections. */
    public final LongAdder bytesOut = new LongAdder();
    public final LongAdder bytesIn = new LongAdder();
    /** Type descriptors the fast serializer sent (a class described in full, not by id). */
    public final LongAdder typeDescriptors = new LongAdder();
    /** remora.dispatch=auto: calls that ran so long that a pool thread took over reading their connection. */
    public final LongAdder handoffs = new LongAdder();
    /** Remora connections by the technology chosen for them (remora.transport=auto picks per peer). */
    public final LongAdder linksFabric = new LongAdder();
    public final LongAdder linksSocket = new LongAdder();
    public final LongAdder linksUnix = new LongAdder();
    /** Connections opened over sockets while libfabric was starting that moved to fabric (remora.fabric.upgrade). */
    public final LongAdder linksUpgraded = new LongAdder();
    /**
     * Receivers' spins that a yield lost the CPU for 500 us or more (another thread, e.g. the JIT compiler, running on
     * that CPU for whole slices), after which the next waits do not spin: counted by the transports, read at report;
     * null (none) until a router is made. Not a lambda: spinning one at premain cost 1-2 ms there.
     */
    public volatile java.util.function.LongSupplier spinsLost;

    /**
     * Calls this client sent with a tracing agent's context, and calls of this server that handed one to the agent
     * (remora.tracing).
     */
    public final LongAdder traceContextsSent = new LongAdder();
    public final LongAdder traceContextsReceived = new LongAdder();
    /** One-way calls sent, and future calls made (client; remora.async and remora.future on their server). */
    public final LongAdder onewayCalls = new LongAdder();
    public final LongAdder futureCalls = new LongAdder();
    /**
     * Writes that carried held-back one-way calls (remora.async.batch), and future calls (remora.future.batch):
     * oneway_calls / oneway_batches per write when only one-way calls are made.
     */
    public final LongAdder onewayBatches = new LongAdder();
    /** Writes of this server that carried replies to future calls held back (remora.future.batch). */
    public final LongAdder futureReplyBatches = new LongAdder();
    /** One-way calls that threw on this server (nobody waited for them). */
    public final LongAdder onewayExceptions = new LongAdder();
    /** One-way calls this client sent on a connection that broke before the server confirmed them. */
    public final LongAdder onewayUnconfirmed = new LongAdder();
    /** Remora.async tasks whose call was sent without waiting, and those that ran synchronously (no Remora call). */
    public final LongAdder asyncTasks = new LongAdder();
    public final LongAdder asyncTasksSync = new LongAdder();
    /** Declared asynchronous methods refused at export (they stay synchronous), once per export. */
    public final LongAdder asyncRefused = new LongAdder();

    private final Map<String, LongAdder> fallbacks = new ConcurrentHashMap<>();
    private volatile Supplier<List<String>> candidateSource;

    /** Counts one fallback to plain RMI for {@code reason}. */
    public void fallback(String reason) {
        fallbacks.computeIfAbsent(reason, r -> new LongAdder()).increment();
    }

    public long fallbackTotal() {
        long n = 0;
        for (LongAdder a : fallbacks.values()) {
            n += a.sum();
        }
        return n;
    }

    public Map<String, Long> fallbacks() {
        Map<String, Long> m = new TreeMap<>();
        fallbacks.forEach((k, v) -> m.put(k, v.sum()));
        return m;
    }

    /**
     * Where the report gets its one-way candidates (the router's, set when it is made): lines naming methods as
     * remora.async takes them, most waited first.
     */
    public void onewayCandidates(Supplier<List<String>> source) {
        candidateSource = source;
    }

    private List<String> onewayCandidates() {
        Supplier<List<String>> source = candidateSource;
        if (source == null) {
            return List.of();
        }
        try {
            return source.get();
        } catch (RuntimeException | Error e) { // the report must not fail for it
            return List.of("(not available: " + e + ")");
        }
    }

    /** All counters by stable snake_case name, in print order. */
    public Map<String, Long> snapshot() {
        Map<String, Long> m = new java.util.LinkedHashMap<>();
        m.put("calls_remora", callsRemora.sum());
        m.put("calls_jrmp", callsJrmp.sum());
        m.put("fallbacks", fallbackTotal());
        m.put("server_jrmp_dispatches", serverJrmpDispatches.sum());
        m.put("exports", exports.sum());
        m.put("accepts", accepts.sum());
        m.put("stream_writes", streamWrites.sum());
        m.put("stream_reads", streamReads.sum());
        m.put("fast_streams", fastStreams.sum());
        m.put("bytes_out", bytesOut.sum());
        m.put("bytes_in", bytesIn.sum());
        m.put("type_descriptors", typeDescriptors.sum());
        m.put("dispatch_handoffs", handoffs.sum());
        m.put("links_fabric", linksFabric.sum());
        m.put("links_socket", linksSocket.sum());
        m.put("links_unix", linksUnix.sum());
        m.put("links_upgraded", linksUpgraded.sum());
        java.util.function.LongSupplier lost = spinsLost;
        m.put("spins_lost", lost == null ? 0 : lost.getAsLong());
        m.put("oneway_calls", onewayCalls.sum());
        m.put("future_calls", futureCalls.sum());
        m.put("oneway_batches", onewayBatches.sum());
        m.put("future_reply_batches", futureReplyBatches.sum());
        m.put("oneway_exceptions", onewayExceptions.sum());
        m.put("oneway_unconfirmed", onewayUnconfirmed.sum());
        m.put("async_refused", asyncRefused.sum());
        m.put("async_api_tasks", asyncTasks.sum());
        m.put("async_api_sync", asyncTasksSync.sum());
        m.put("trace_contexts_sent", traceContextsSent.sum());
        m.put("trace_contexts_received", traceContextsReceived.sum());
        m.put("advice_errors", adviceErrors.sum());
        return m;
    }

    /**
     * The report printed at exit with {@code remora.stats=true}: a readable block, then one
     * {@code [remora] stats-csv k=v,...} line that scripts parse.
     */
    public String report() {
        Map<String, Long> s = snapshot();
        StringBuilder sb = new StringBuilder();
        sb.append("[remora] stats: ").append(s.get("calls_remora")).append(" calls on Remora's path, ")
                .append(s.get("calls_jrmp")).append(" on JRMP; ").append(s.get("server_jrmp_dispatches"))
                .append(" JRMP calls served; ").append(s.get("bytes_out")).append(" bytes out, ")
                .append(s.get("bytes_in")).append(" in; ").append(s.get("type_descriptors"))
                .append(" type descriptors sent\n");
        for (Map.Entry<String, Long> e : fallbacks().entrySet()) {
            sb.append("[remora] stats: fallback x").append(e.getValue()).append(": ").append(e.getKey()).append('\n');
        }
        List<String> candidates = onewayCandidates();
        if (!candidates.isEmpty()) {
            sb.append("[remora] stats: void methods whose callers waited for a reply that carries nothing; if nothing a"
                    + " caller does next relies on the call having run, declare them one-way on the server"
                    + " (-Dremora.async=Class#method) and the callers go on at once:\n");
            for (String c : candidates) {
                sb.append("[remora] stats: one-way candidate ").append(c).append('\n');
            }
        }
        sb.append("[remora] stats-csv ");
        boolean first = true;
        for (Map.Entry<String, Long> e : s.entrySet()) {
            if (!first) {
                sb.append(',');
            }
            first = false;
            sb.append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }
}
