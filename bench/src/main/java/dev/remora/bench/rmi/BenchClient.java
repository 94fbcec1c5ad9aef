package dev.remora.bench.rmi;

import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.rmi.ConnectException;
import java.rmi.NotBoundException;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.concurrent.Callable;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Client main of the collection: looks the service up and runs the selected kernels over the selected objects,
 * printing progress on stderr and one CSV row per kernel/object ({@link ResultRow}) on stdout or {@code --out}.
 *
 * <p>Timing: per kernel a warm-up, then up to {@code --reps} calls (or until {@code --budget-ms} is spent), each
 * timed with {@code System.nanoTime()} into a preallocated {@code long[]}; the loop allocates nothing beyond the
 * call itself. {@code star} runs {@code --star-threads} threads in this one JVM behind a barrier: threads rather
 * than JVMs so that all clients share one agent configuration and one warm JIT, and so that on a 2-vCPU machine we
 * measure the server under concurrent calls rather than N JVMs' start-up and JIT competing for the CPUs; RMI opens
 * one connection per concurrently calling thread, so the server still sees N connections.
 *
 * <p>{@code --verify} runs every kernel a few times, checks every result (echo equals what was sent, deep equality,
 * server-side digests of void kernels' arguments, callback count for pingpong, the exception for throw) and prints
 * {@code verify <kernel> <object> ok <digest>} with a digest that depends only on the content, so runs with and
 * without an agent compare line by line.
 */
public final class BenchClient {

    /** The kernels timed by default (throw(obj) only on request or in --verify). */
    public static final String DEFAULT_KERNELS = "ping,ping2i,ping2i2f,ping_obj,echo_obj,pingpong,star,raw_tcp";
    /** A warm-up pass that costs each JVM at most this much JIT time counts as quiet. */
    static final long JIT_QUIET_MS = 5;
    /** Message size of the raw TCP ping-pong. */
    public static final int RAW_MESSAGE = 64;

    private final PingService svc;
    private final String host;
    private final PrintStream err;
    private CallbackImpl callback;
    private volatile Object sink;

    private BenchClient(PingService svc, String host, PrintStream err) {
        this.svc = svc;
        this.host = host;
        this.err = err;
    }

    /** Declares the client's options. */
    public static Options options() {
        return new Options()
                .option("host", "127.0.0.1", "registry host")
                .option("port", "1099", "registry port")
                .option("name", "remora-bench", "service name in the registry")
                .option("kernels", DEFAULT_KERNELS, "kernels, comma-separated ids or 'all': " + Kernel.ids())
                .option("objects", "all", "objects: small, arrays, all, or labels such as null,4int,float[5000]")
                .option("sizes", "50,200,500,2000,5000,20000", "array lengths used by the 'arrays' group")
                .option("warmup-ms", "3000", "first warm up the JIT on all selected kernels/objects, round-robin, this long")
                .option("warmup", "2000", "warm-up calls per kernel/object (capped by --budget-ms)")
                .option("warmup-case-ms", "0", "and keep warming up each kernel/object at least this long (capped by"
                        + " --budget-ms): a fast configuration then gets as much steady calling before timing as a slow one")
                .option("reps", "10000", "timed calls per kernel/object (star: in total over all threads)")
                .option("budget-ms", "2000", "time budget per kernel/object, for the warm-up and again for timing")
                .option("star-threads", "4", "client threads calling star(obj) at once")
                .option("oneway-calls", "200000", "timed calls of the one-way kernels at least (within at least 2 s):"
                        + " a throughput, which a short loop's start and final drain would dominate")
                .option("config", "default", "configuration name written in the CSV")
                .option("round", "1", "round number written in the CSV")
                .option("format", "csv", "csv | text")
                .option("out", "-", "result file ('-': stdout)")
                .option("verify-calls", "3", "calls per kernel/object in --verify")
                .option("connect-timeout-s", "30", "keep retrying the lookup this long")
                .option("cold", "0", "first time the lookup and this many calls of the fresh JVM pair (void ping, null,"
                        + " 32int, tree15 in turn) and write them as kernel 'cold'; 0: off")
                .flag("verify", "check results instead of timing; one 'verify <kernel> <object> ok <digest>' line each")
                .flag("verify-first", "before timing, check one call of every case; wrong results: exit 1, no timing")
                .flag("no-header", "omit the CSV header")
                .flag("shutdown-server", "ask the server to exit when done")
                .flag("help", "print this help");
    }

    public static void main(String[] args) {
        int code = run(args, System.out, System.err);
        System.exit(code);
    }

    /** Runs the client; returns the process exit code (0 ok, 1 failure, 2 bad usage). */
    public static int run(String[] args, PrintStream stdout, PrintStream err) {
        Options o = options();
        List<Kernel> kernels;
        List<ObjectSpec> objects;
        try {
            o.parse(args);
            if (o.flag("help")) {
                stdout.println("java -cp bench/target/classes " + BenchClient.class.getName() + " [options]");
                stdout.print(o.usage());
                return 0;
            }
            String verifyKernels = o.isSet("kernels") ? o.get("kernels") : "all";
            kernels = Kernel.parseList(o.flag("verify") ? verifyKernels : o.get("kernels"));
            objects = ObjectSpec.parseList(o.get("objects"), o.getInts("sizes"));
            if (!o.get("format").equals("csv") && !o.get("format").equals("text")) {
                throw new IllegalArgumentException("--format must be csv or text, got '" + o.get("format") + "'");
            }
            // Validate numbers up front, not after minutes of measuring.
            o.getInt("warmup", 0, Integer.MAX_VALUE);
            o.getInt("warmup-case-ms", 0, 3_600_000);
            o.getInt("warmup-ms", 0, 3_600_000);
            o.getInt("reps", 1, 50_000_000);
            o.getInt("budget-ms", 1, 3_600_000);
            o.getInt("star-threads", 1, 1024);
            o.getInt("round", 0, 1_000_000);
            o.getInt("verify-calls", 1, 1_000_000);
            o.getInt("connect-timeout-s", 0, 3600);
            o.getInt("cold", 0, 10_000_000);
        } catch (IllegalArgumentException e) {
            err.println("bench-client: " + e.getMessage());
            return 2;
        }
        String host = o.get("host");
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", host); // where pingpong's callback is reachable
        }
        PrintStream out = stdout;
        BenchClient client = null;
        try {
            if (!o.get("out").equals("-")) {
                out = new PrintStream(new FileOutputStream(o.get("out")), true, StandardCharsets.UTF_8);
            }
            long lookupStart = System.nanoTime();
            PingService svc = lookup(host, o.getInt("port", 1, 65535), o.get("name"),
                    o.getInt("connect-timeout-s", 0, 3600) * 1000L);
            client = new BenchClient(svc, host, err);
            int cold = o.getInt("cold", 0, 10_000_000);
            ResultRow coldRow = cold > 0 && !o.flag("verify") ? client.cold(o, cold, lookupStart) : null;
            err.println("[bench-client] JDK " + Runtime.version() + ", server " + host + ":" + o.get("port")
                    + ", config " + o.get("config") + ", round " + o.get("round"));
            int code;
            if (o.flag("verify")) {
                code = client.verifyAll(o, kernels, objects, out, o.getInt("verify-calls", 1, 1_000_000));
            } else if (o.flag("verify-first") && client.verifyAll(o, kernels, objects, err, 1) != 0) {
                err.println("bench-client: results are wrong under this configuration (see the FAIL lines above);"
                        + " not timing it");
                code = 1;
            } else {
                if (!o.flag("no-header")) {
                    out.println(o.get("format").equals("csv") ? ResultRow.HEADER : String.format(
                            "%-32s %-12s %8s %10s %10s %10s %12s", "kernel", "object", "calls", "median_us", "p90_us",
                            "p99_us", "calls_per_s"));
                }
                if (coldRow != null) {
                    out.println(o.get("format").equals("csv") ? coldRow.toCsv() : String.format(Locale.ROOT,
                            "%-32s %-12s %8d %10.2f %10.2f %10.2f %12.0f", COLD_LABEL, "mix", coldRow.calls(),
                            coldRow.medianUs(), coldRow.p90Us(), coldRow.p99Us(), coldRow.callsPerS()));
                }
                code = client.timeAll(o, kernels, objects, out);
            }
            if (o.flag("shutdown-server")) {
                try {
                    svc.shutdown();
                } catch (RemoteException e) {
                    err.println("bench-client: server shutdown call failed (it may already be gone): " + e);
                }
            }
            return code;
        } catch (Exception e) {
            err.println("bench-client: " + e);
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                err.println("bench-client:   caused by " + c);
            }
            return 1;
        } finally {
            if (client != null) {
                client.close();
            }
            if (out != stdout) {
                out.close();
            } else {
                out.flush();
            }
        }
    }

    private static PingService lookup(String host, int port, String name, long timeoutMs) throws Exception {
        long deadline = System.currentTimeMillis() + timeoutMs;
        while (true) {
            try {
                return (PingService) LocateRegistry.getRegistry(host, port).lookup(name);
            } catch (ConnectException | NotBoundException e) {
                if (System.currentTimeMillis() > deadline) {
                    throw new IOException("no '" + name + "' at " + host + ":" + port + " after " + timeoutMs
                            + " ms: is BenchServer running there (--host/--port)?", e);
                }
                Thread.sleep(100);
            }
        }
    }

    private void close() {
        if (callback != null) {
            try {
                UnicastRemoteObject.unexportObject(callback, true);
            } catch (RemoteException e) {
                // Not exported any more.
            }
        }
    }

    // ------------------------------------------------------------------ timing

    /** One remote call of a kernel, bound to its argument once, outside the timed loop. */
    interface Invoker {
        void call() throws Exception;
    }

    /**
     * A timed run: the summary, the wall time of the timed loop and the CPU time both JVMs spent in it (-1: not
     * measured).
     */
    record Measured(Stats.Summary summary, long wallNs, long cpuNs) {
        Measured(Stats.Summary summary, long wallNs) {
            this(summary, wallNs, -1);
        }

        double callsPerS() {
            return summary.calls() / (wallNs / 1e9);
        }

        /** CPU time of both JVMs per timed call in us, NaN when not measured. */
        double cpuUsPerCall() {
            return cpuNs < 0 || summary.calls() == 0 ? Double.NaN : cpuNs / 1e3 / summary.calls();
        }
    }

    /** Reads the CPU time both JVMs have used so far (ns), or -1; called right before and after a timed loop. */
    interface CpuProbe {
        long cpuNanos() throws Exception;
    }

    /** Client + server process CPU time, or -1 when either JVM does not report it. */
    private long bothCpuNanos() throws Exception {
        long mine = PingServiceImpl.processCpuNanos();
        long server = svc.cpuNanos();
        return mine < 0 || server < 0 ? -1 : mine + server;
    }

    private int timeAll(Options o, List<Kernel> kernels, List<ObjectSpec> objects, PrintStream out)
            throws Exception {
        String format = o.get("format");
        int warmup = o.getInt("warmup", 0, Integer.MAX_VALUE);
        long warmMinNs = o.getInt("warmup-case-ms", 0, 3_600_000) * 1_000_000L;
        int reps = o.getInt("reps", 1, 50_000_000);
        long budgetNs = o.getInt("budget-ms", 1, 3_600_000) * 1_000_000L;
        int threads = o.getInt("star-threads", 1, 1024);
        int onewayReps = Math.max(reps, o.getInt("oneway-calls", 1, 50_000_000));
        long onewayBudgetNs = Math.max(budgetNs, ONEWAY_MIN_BUDGET_NS);
        long[] samples = new long[reps];
        globalWarmup(kernels, objects, o.getInt("warmup-ms", 0, 3_600_000) * 1_000_000L, o.get("config"), threads);
        for (Kernel k : kernels) {
            for (ObjectSpec spec : casesOf(k, objects)) {
                err.println("[bench-client] config " + o.get("config") + " round " + o.get("round") + ": "
                        + k.label() + (spec == ObjectSpec.NONE ? "" : " " + spec.label()) + " ...");
                Measured m;
                if (k == Kernel.STAR) {
                    Object arg = spec.create();
                    m = measureStar(() -> sink = svc.star(arg), null, threads, warmup, warmMinNs, reps, budgetNs);
                } else if (k == Kernel.ONEWAY_STAR) {
                    m = measureStar(svc::onewayPing, svc::onewayCount, threads, Math.max(warmup, onewayReps),
                            warmMinNs, onewayReps, onewayBudgetNs);
                } else if (k == Kernel.ONEWAY) {
                    m = measure(svc::onewayPing, Math.max(warmup, onewayReps), warmMinNs, onewayReps, onewayBudgetNs,
                            new long[onewayReps], this::bothCpuNanos, svc::onewayCount);
                } else if (k == Kernel.FUTURE_LATE || k == Kernel.FUTURE_NOW || k == Kernel.FUTURE_SYNC) {
                    m = measurePaced(k, warmup, warmMinNs, reps, budgetNs, samples);
                } else if (k == Kernel.RAW_TCP) {
                    m = measureRaw(spec.n(), warmup, warmMinNs, reps, budgetNs, samples);
                } else {
                    m = measure(invoker(k, spec.create()), warmup, warmMinNs, reps, budgetNs, samples,
                            this::bothCpuNanos);
                }
                Stats.Summary s = m.summary();
                ResultRow row = new ResultRow(o.get("config"), o.getInt("round", 0, 1_000_000), k.id(),
                        spec.kind().csv(), spec.n(), s.calls(), s.medianUs(), s.p90Us(), s.p99Us(), m.callsPerS(),
                        m.cpuUsPerCall(), s.steadyUs());
                out.println(format.equals("csv") ? row.toCsv() : String.format(Locale.ROOT,
                        "%-32s %-12s %8d %10.2f %10.2f %10.2f %12.0f", k.label(), spec.label(), s.calls(),
                        s.medianUs(), s.p90Us(), s.p99Us(), m.callsPerS()));
                out.flush();
                err.println(String.format(Locale.ROOT, "[bench-client]   median %.2f us, p90 %.2f, p99 %.2f, %d calls,"
                        + " %.0f calls/s%s", s.medianUs(), s.p90Us(), s.p99Us(), s.calls(), m.callsPerS(),
                        Double.isNaN(s.steadyUs()) ? "" : String.format(Locale.ROOT, ", steady %.2f us", s.steadyUs())));
            }
        }
        return 0;
    }

    /**
     * The "cold" figure: the lookup and the first {@code calls} calls of a fresh JVM pair, cycling through void
     * ping(), echo(null), echo(32int) and echo(tree15), before anything else has run: the time an application waits
     * for RMI to become fast, which the steady tables hide. The row (kernel {@code cold}, object {@code mix}) gives in
     * {@code median_us} the mean time per call, lookup included (the total over the calls); p90 and p99 are of the
     * calls alone; {@code cpu_us} is the CPU time both JVMs have used since they started (JVM start, the agent's
     * start-up, class loading, the JIT), divided by the calls.
     */
    private ResultRow cold(Options o, int calls, long lookupStartNs) throws Exception {
        long lookupNs = System.nanoTime() - lookupStartNs;
        Object int32 = ObjectSpec.parse("32int").create();
        Object tree = ObjectSpec.parse("tree15").create();
        long[] samples = new long[calls];
        for (int i = 0; i < calls; i++) {
            long t0 = System.nanoTime();
            switch (i & 3) {
                case 0 -> svc.ping();
                case 1 -> sink = svc.echo(null);
                case 2 -> sink = svc.echo(int32);
                default -> sink = svc.echo(tree);
            }
            samples[i] = System.nanoTime() - t0;
        }
        long totalNs = System.nanoTime() - lookupStartNs;
        long mine = PingServiceImpl.lifetimeCpu();
        long server = svc.lifetimeCpuNanos();
        double cpuUs = mine < 0 || server < 0 ? Double.NaN : (mine + server) / 1e3 / calls;
        // where the time went: the lookup, the first call, then each tenth of the calls (ms)
        StringBuilder tenths = new StringBuilder();
        for (int t = 0; t < 10; t++) {
            long sum = 0;
            for (int i = Math.max(1, t * calls / 10); i < (t + 1) * calls / 10; i++) {
                sum += samples[i];
            }
            tenths.append(t == 0 ? "" : " ").append(String.format(Locale.ROOT, "%.1f", sum / 1e6));
        }
        err.println(String.format(Locale.ROOT, "[bench-client] cold: lookup and %d calls took %.1f ms (%.1f us per call"
                + " on average), both JVMs' CPU since start %.0f ms; lookup %.1f ms, first call %.1f ms, then per"
                + " tenth of the calls %s ms", calls, totalNs / 1e6, totalNs / 1e3 / calls, cpuUs * calls / 1e3,
                lookupNs / 1e6, samples[0] / 1e6, tenths));
        Stats.Summary s = Stats.summarizeUnordered(samples, calls);
        return new ResultRow(o.get("config"), o.getInt("round", 0, 1_000_000), COLD_ID, "mix", calls, calls,
                totalNs / 1e3 / calls, s.p90Us(), s.p99Us(), calls / (totalNs / 1e9), cpuUs);
    }

    /** The cold figure's kernel id in the CSV and its row title (see {@link #cold}). */
    static final String COLD_ID = "cold";
    static final String COLD_LABEL = "cold: lookup + first calls (mean)";

    /**
     * Warms the JIT on every selected kernel/object, round-robin, for {@code budgetNs}: the first kernel measured
     * otherwise pays for compiling RMI's and serialization's shared code (its median drops from about 37 to 23 us
     * after some 30,000 calls on this machine). Raw TCP has its own warm-up. {@code star} is warmed up from its
     * {@code threads} threads at once: warmed up from one thread, the first star case timed compiled the code of
     * concurrent calls (several connections and server threads): fabric+fast's star(null) ran 20-28 k calls/s when
     * timed first against 130-140 k after this warm-up (same placement, JDK 25).
     */
    private void globalWarmup(List<Kernel> kernels, List<ObjectSpec> objects, long budgetNs, String config,
            int threads) throws Exception {
        if (budgetNs <= 0) {
            return;
        }
        List<Invoker> all = new ArrayList<>();
        ExecutorService starPool = null;
        for (Kernel k : kernels) {
            if (k == Kernel.RAW_TCP || k == Kernel.FUTURE_WAIT1MS || k == Kernel.SYNC_WAIT1MS
                    || k == Kernel.API_WAIT1MS) {
                continue; // (1000 calls of 1 ms would make each pass last seconds: they warm up on their own)
            }
            for (ObjectSpec spec : casesOf(k, objects)) {
                Invoker inv = invoker(k, spec.create());
                if ((k == Kernel.STAR || k == Kernel.ONEWAY_STAR) && threads > 1) {
                    if (starPool == null) {
                        starPool = Executors.newFixedThreadPool(threads, r -> {
                            Thread t = new Thread(r, "star-warmup");
                            t.setDaemon(true);
                            return t;
                        });
                    }
                    inv = concurrently(inv, threads, starPool);
                }
                all.add(inv);
            }
        }
        if (all.isEmpty()) {
            return;
        }
        try {
            warmUpAll(all, budgetNs, config);
        } finally {
            if (starPool != null) {
                starPool.shutdown();
            }
        }
    }

    /** One call of {@code inv} from each of {@code threads} threads of {@code pool} at once. */
    private static Invoker concurrently(Invoker inv, int threads, ExecutorService pool) {
        List<Callable<Void>> calls = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            calls.add(() -> {
                inv.call();
                return null;
            });
        }
        return () -> {
            for (Future<Void> f : pool.invokeAll(calls)) {
                f.get();
            }
        };
    }

    private void warmUpAll(List<Invoker> all, long budgetNs, String config) throws Exception {
        err.println("[bench-client] config " + config + ": warming up on " + all.size() + " kernel/object cases for "
                + budgetNs / 1_000_000 + " ms");
        long deadline = System.nanoTime() + budgetNs;
        while (System.nanoTime() < deadline) {
            for (Invoker inv : all) {
                for (int i = 0; i < 50; i++) {
                    inv.call();
                }
                if (System.nanoTime() >= deadline) {
                    break;
                }
            }
        }
        settleJit(all, Math.max(5_000_000_000L, budgetNs));
    }

    /**
     * Steady state: repeats a short pass over all cases (20 calls each, then 200 ms idle so queued compilations
     * finish) until a whole pass costs neither JVM more than {@link #JIT_QUIET_MS} of JIT compilation, for at most
     * {@code maxNs}.
     * On one vCPU a compilation triggered during timing steals milliseconds from the kernel being timed: without
     * this the first kernel timed (ping()) read 32-45 us instead of 23.
     */
    private void settleJit(List<Invoker> all, long maxNs) throws Exception {
        long start = System.nanoTime();
        int passes = 0;
        long mine = PingServiceImpl.jitMillis();
        long theirs = svc.compilationMillis();
        boolean quiet = false;
        while (!quiet && System.nanoTime() - start < maxNs) {
            for (Invoker inv : all) {
                for (int i = 0; i < 20; i++) {
                    inv.call();
                }
            }
            Thread.sleep(200);
            passes++;
            long m = PingServiceImpl.jitMillis();
            long t = svc.compilationMillis();
            quiet = m - mine <= JIT_QUIET_MS && t - theirs <= JIT_QUIET_MS;
            if (!quiet) {
                err.println("[bench-client]   JIT pass " + passes + ": client +" + (m - mine) + " ms, server +"
                        + (t - theirs) + " ms");
            }
            mine = m;
            theirs = t;
        }
        err.println(String.format(Locale.ROOT, "[bench-client] JIT %s after %d pass(es), %.1f s (compilation so far:"
                + " client %d ms, server %d ms)", quiet ? "quiet" : "still compiling", passes,
                (System.nanoTime() - start) / 1e9, mine, theirs));
    }

    /** The objects a kernel runs with: the selected ones, none, or the raw message. */
    static List<ObjectSpec> casesOf(Kernel k, List<ObjectSpec> objects) {
        if (k.takesObject()) {
            return objects;
        }
        if (k == Kernel.RAW_TCP) {
            return List.of(new ObjectSpec(ObjectSpec.Kind.RAW, RAW_MESSAGE));
        }
        return List.of(ObjectSpec.NONE);
    }

    private Invoker invoker(Kernel k, Object arg) throws RemoteException {
        switch (k) {
            case PING:
                return svc::ping;
            case PING_2I:
                return () -> svc.ping(1, 2);
            case PING_2I2F:
                return () -> svc.ping(1, 2, 3.0f, 4.0f);
            case PING_OBJ:
                return () -> svc.ping(arg);
            case ECHO:
                return () -> sink = svc.echo(arg);
            case PINGPONG: {
                CallbackImpl cb = callback();
                PingService.Callback stub = cb.stub;
                return () -> sink = svc.pingpong(arg, stub);
            }
            case STAR:
                return () -> sink = svc.star(arg);
            case ONEWAY:
            case ONEWAY_STAR:
                return svc::onewayPing;
            case FUTURE_NOW:
            case FUTURE_LATE: {
                Object int32 = ObjectSpec.parse("32int").create();
                return () -> sink = svc.futureEcho(int32).value();
            }
            case FUTURE_SYNC: {
                Object int32 = ObjectSpec.parse("32int").create();
                return () -> sink = svc.syncEcho(int32).value();
            }
            case FUTURE_WAIT1MS:
                return () -> {
                    Echoed[] rs = new Echoed[WAIT_CALLS];
                    for (int i = 0; i < WAIT_CALLS; i++) {
                        rs[i] = svc.wait1ms(i); // a future each in the +async configurations
                    }
                    sink = sumOf(rs); // the results used afterwards
                };
            case SYNC_WAIT1MS:
                return () -> {
                    Echoed[] rs = new Echoed[WAIT_CALLS];
                    for (int i = 0; i < WAIT_CALLS; i++) {
                        rs[i] = svc.wait1msSync(i);
                    }
                    sink = sumOf(rs);
                };
            case API_WAIT1MS:
                return () -> {
                    Echoed[] rs = new Echoed[WAIT_CALLS];
                    sink = sumOf(apiWait1ms(rs));
                };
            case THROW:
                return () -> {
                    try {
                        svc.fail(arg);
                    } catch (BenchException expected) {
                        sink = expected;
                    }
                };
            default:
                throw new IllegalArgumentException("no plain invoker for " + k);
        }
    }

    /**
     * Warm-up ({@code warmup} calls and at least {@code warmMinNs}), then timed calls into {@code samples}; both phases
     * stop at their budget.
     */
    static Measured measure(Invoker inv, int warmup, long warmMinNs, int reps, long budgetNs, long[] samples)
            throws Exception {
        return measure(inv, warmup, warmMinNs, reps, budgetNs, samples, null);
    }

    /** Calls of the 1 ms kernels per loop (one sample). */
    static final int WAIT_CALLS = 1000;

    /** The sum of the results of the 1 ms kernels' calls, checked: every result used, each the right one. */

    /** Kernel api_wait1ms: {@code rs.length} calls of wait1msSync, each made with Remora.async, then all used. */
    private Echoed[] apiWait1ms(Echoed[] rs) throws Exception {
        @SuppressWarnings("unchecked")
        java.util.concurrent.CompletableFuture<Echoed>[] fs = new java.util.concurrent.CompletableFuture[rs.length];
        for (int i = 0; i < rs.length; i++) {
            int n = i;
            fs[i] = dev.remora.api.Remora.async(() -> svc.wait1msSync(n));
        }
        for (int i = 0; i < rs.length; i++) {
            rs[i] = fs[i].get();
        }
        return rs;
    }
    private static long sumOf(Echoed[] rs) {
        long sum = 0;
        for (Echoed r : rs) {
            sum += (Integer) r.value();
        }
        check(sum == (long) rs.length * (rs.length - 1) / 2, "1 ms kernel: the results sum to " + sum);
        return sum;
    }

    /** As above; {@code cpu} (may be null) is read right before and after the timed loop. */
    static Measured measure(Invoker inv, int warmup, long warmMinNs, int reps, long budgetNs, long[] samples,
            CpuProbe cpu) throws Exception {
        return measure(inv, warmup, warmMinNs, reps, budgetNs, samples, cpu, null);
    }

    /**
     * As above; {@code drain} (may be null), a synchronous call made after the timed loop and counted in its wall
     * time (not in the samples), makes a one-way kernel's calls/s count only calls the server has run: a thread's
     * synchronous call runs after its one-way calls.
     */
    static Measured measure(Invoker inv, int warmup, long warmMinNs, int reps, long budgetNs, long[] samples,
            CpuProbe cpu, Invoker drain) throws Exception {
        warmUp(inv, warmup, warmMinNs, budgetNs);
        if (drain != null) {
            drain.call();
        }
        int n = 0;
        long cpu0 = cpu == null ? -1 : cpu.cpuNanos();
        long start = System.nanoTime();
        long deadline = start + budgetNs;
        long t1 = start;
        while (n < reps) {
            long t0 = System.nanoTime();
            inv.call();
            t1 = System.nanoTime();
            samples[n++] = t1 - t0;
            if (t1 > deadline) {
                break;
            }
        }
        if (drain != null) {
            drain.call();
            t1 = System.nanoTime();
        }
        long cpu1 = cpu == null || cpu0 < 0 ? -1 : cpu.cpuNanos();
        return new Measured(Stats.summarize(samples, n), t1 - start, cpu1 < 0 ? -1 : cpu1 - cpu0);
    }

    /**
     * The one-way kernels' least timing budget (--oneway-calls, also their least warm-up): over 5000 calls (10 ms at
     * 500k/s) the loop's start and its final drain (the synchronous call that waits for the server to run the calls
     * still queued) made up most of the time: 205k calls/s over 5000 calls against 814k over 500000 (socket, one
     * CPU). A warm-up shorter than the timing left the regime of a long run (callers waiting at
     * remora.async.maxPending) to the timed loop, where both JVMs recompiled their call paths on the shared CPU:
     * about 300 ms of stalls in the first 200000 calls.
     */
    static final long ONEWAY_MIN_BUDGET_NS = 2_000_000_000L;

    /** The pause (other work, not timed) of the future kernels ("Implementing Asynchronous RMI in Java"): long enough for a call to complete. */
    static final long PAUSE_NANOS = 1_000_000;

    /**
     * Seed 004's three columns, all paced alike by a pause of {@link #PAUSE_NANOS} per call (not timed; a pause
     * makes any next call slower on a VM, whose idle threads must be woken, so the three pay the same):
     * {@code future_late} times the call and the first use of its result with the pause in between (the future used
     * after its call completed), {@code future_now} the call and its use at once, then pauses, {@code future_sync}
     * the same method made synchronous, then pauses.
     */
    private Measured measurePaced(Kernel k, int warmup, long warmMinNs, int reps, long budgetNs, long[] samples)
            throws Exception {
        Object int32 = ObjectSpec.parse("32int").create();
        boolean sync = k == Kernel.FUTURE_SYNC;
        boolean late = k == Kernel.FUTURE_LATE;
        warmUp(invoker(k, null), warmup, warmMinNs, budgetNs);
        int n = 0;
        long start = System.nanoTime();
        long deadline = start + budgetNs;
        long t3 = start;
        while (n < reps) {
            long t0 = System.nanoTime();
            Echoed r = sync ? svc.syncEcho(int32) : svc.futureEcho(int32);
            long t1 = System.nanoTime();
            if (late) {
                java.util.concurrent.locks.LockSupport.parkNanos(PAUSE_NANOS);
            }
            long t2 = System.nanoTime();
            sink = r.value();
            t3 = System.nanoTime();
            samples[n++] = (t1 - t0) + (t3 - t2);
            if (!late) {
                java.util.concurrent.locks.LockSupport.parkNanos(PAUSE_NANOS);
            }
            if (t3 > deadline) {
                break;
            }
        }
        return new Measured(Stats.summarize(samples, n), t3 - start);
    }

    /** Calls {@code inv} at least {@code calls} times and for at least {@code minNs}, stopping at {@code budgetNs}. */
    static void warmUp(Invoker inv, int calls, long minNs, long budgetNs) throws Exception {
        long begin = System.nanoTime();
        long deadline = begin + budgetNs;
        long warmEnd = begin + Math.min(minNs, budgetNs);
        for (int i = 0; ; i++) {
            long now = System.nanoTime();
            if (now >= deadline || i >= calls && now >= warmEnd) {
                break;
            }
            inv.call();
        }
    }

    private Measured measureRaw(int size, int warmup, long warmMinNs, int reps, long budgetNs, long[] samples)
            throws Exception {
        int port = svc.openRawEcho(size);
        try (Socket s = new Socket(host, port)) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(30_000);
            OutputStream os = s.getOutputStream();
            InputStream is = s.getInputStream();
            byte[] buf = (byte[]) new ObjectSpec(ObjectSpec.Kind.RAW, size).create();
            return measure(() -> {
                os.write(buf);
                if (!PingServiceImpl.readFully(is, buf)) {
                    throw new IOException("raw echo server closed the connection");
                }
            }, warmup, warmMinNs, reps, budgetNs, samples, this::bothCpuNanos);
        }
    }

    /**
     * {@code star} and {@code oneway_star}: {@code threads} threads, each with its own sample array, wait at a barrier,
     * then call {@code inv} at once, and each ends with {@code drain} (a synchronous call; may be null) within its wall
     * time. Latencies are merged; calls/s is all calls over the wall time from the barrier to the last thread's end.
     */
    private Measured measureStar(Invoker inv, Invoker drain, int threads, int warmup, long warmMinNs, int reps,
            long budgetNs) throws Exception {
        int perThread = Math.max(1, reps / threads);
        int warmPerThread = warmup / threads;
        long[][] samples = new long[threads][perThread];
        int[] counts = new int[threads];
        long[] startNs = new long[1];
        AtomicLong endNs = new AtomicLong();
        AtomicReference<Throwable> failure = new AtomicReference<>();
        CyclicBarrier barrier = new CyclicBarrier(threads, () -> startNs[0] = System.nanoTime());
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                try {
                    warmUp(inv, warmPerThread, warmMinNs, budgetNs);
                    if (drain != null) {
                        drain.call();
                    }
                    barrier.await();
                    long deadline = startNs[0] + budgetNs;
                    long[] mine = samples[id];
                    int n = 0;
                    while (n < perThread) {
                        long t0 = System.nanoTime();
                        inv.call();
                        long t1 = System.nanoTime();
                        mine[n++] = t1 - t0;
                        if (t1 > deadline) {
                            break;
                        }
                    }
                    counts[id] = n;
                    if (drain != null) {
                        drain.call();
                    }
                    endNs.accumulateAndGet(System.nanoTime(), Math::max);
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    barrier.reset();
                }
            }, "star-" + t);
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure.get() != null) {
            throw new IOException("star thread failed: " + failure.get(), failure.get());
        }
        int total = 0;
        for (int c : counts) {
            total += c;
        }
        long[] all = new long[total];
        int off = 0;
        for (int t = 0; t < threads; t++) {
            System.arraycopy(samples[t], 0, all, off, counts[t]);
            off += counts[t];
        }
        return new Measured(Stats.summarizeUnordered(all, total), endNs.get() - startNs[0]);
    }

    // ------------------------------------------------------------------ verify

    private int verifyAll(Options o, List<Kernel> kernels, List<ObjectSpec> objects, PrintStream out, int calls) {
        int threads = o.getInt("star-threads", 1, 1024);
        int failures = 0;
        for (Kernel k : kernels) {
            for (ObjectSpec spec : casesOf(k, objects)) {
                String what = k.id() + " " + spec.label();
                try {
                    long digest = verify(k, spec, calls, threads);
                    out.println("verify " + what + " ok " + Digest.hex(digest));
                } catch (Exception | AssertionError e) {
                    failures++;
                    out.println("verify " + what + " FAIL " + e);
                    err.println("bench-client: verify " + what + " failed: " + e);
                }
                out.flush();
            }
        }
        if (failures > 0) {
            err.println("bench-client: " + failures + " verify case(s) failed");
            return 1;
        }
        return 0;
    }

    /** Runs one kernel/object {@code calls} times, checks each outcome, returns a content-only digest. */
    long verify(Kernel k, ObjectSpec spec, int calls, int threads) throws Exception {
        long h = Digest.of(Digest.EMPTY, k.id());
        h = Digest.of(h, spec.create());
        for (int i = 0; i < calls; i++) {
            switch (k) {
                case PING:
                    svc.ping();
                    h = Digest.mix(h, expectServer(PingServiceImpl.argsDigest()));
                    break;
                case PING_2I:
                    svc.ping(i + 1, -7 * (i + 1));
                    h = Digest.mix(h, expectServer(PingServiceImpl.argsDigest(i + 1, -7 * (i + 1))));
                    break;
                case PING_2I2F:
                    svc.ping(i, i * 3, i * 0.5f, -i - 0.25f);
                    h = Digest.mix(h, expectServer(PingServiceImpl.argsDigest(i, i * 3, i * 0.5f, -i - 0.25f)));
                    break;
                case PING_OBJ: {
                    Object arg = spec.create();
                    svc.ping(arg);
                    h = Digest.mix(h, expectServer(PingServiceImpl.argsDigest(arg)));
                    break;
                }
                case ECHO:
                    h = Digest.of(h, expectEqual(spec.create(), svc.echo(spec.create())));
                    break;
                case PINGPONG: {
                    CallbackImpl cb = callback();
                    long before = cb.count.get();
                    Object r = expectEqual(spec.create(), svc.pingpong(spec.create(), cb.stub));
                    long seen = cb.count.get() - before;
                    check(seen == 1, "pingpong: expected exactly 1 callback into the client, saw " + seen);
                    h = Digest.mix(Digest.of(h, r), seen);
                    break;
                }
                case STAR:
                    h = Digest.mix(h, verifyStar(spec, threads));
                    break;
                case RAW_TCP:
                    h = Digest.mix(h, verifyRaw(spec.n(), i));
                    break;
                case ONEWAY:
                case ONEWAY_STAR: {
                    long before = svc.onewayCount();
                    svc.onewayPing();
                    long seen = svc.onewayCount() - before; // a later synchronous call sees the one-way call run
                    check(seen == 1, k.id() + ": the server ran " + seen + " onewayPing calls, expected 1");
                    h = Digest.mix(h, seen);
                    break;
                }
                case FUTURE_NOW:
                case FUTURE_LATE:
                case FUTURE_SYNC: {
                    Object arg = ObjectSpec.parse("32int").create();
                    Echoed r = k == Kernel.FUTURE_SYNC ? svc.syncEcho(arg) : svc.futureEcho(arg);
                    h = Digest.of(h, expectEqual(arg, r.value()));
                    check(r.equals(new Echoed.Value(arg)), k.id() + ": the result is not equal to what was sent");
                    break;
                }
                case FUTURE_WAIT1MS:
                case SYNC_WAIT1MS:
                case API_WAIT1MS: {
                    Echoed[] rs = new Echoed[10];
                    if (k == Kernel.API_WAIT1MS) {
                        apiWait1ms(rs);
                    } else {
                        for (int j = 0; j < rs.length; j++) {
                            rs[j] = k == Kernel.FUTURE_WAIT1MS ? svc.wait1ms(j) : svc.wait1msSync(j);
                        }
                    }
                    h = Digest.mix(h, sumOf(rs));
                    break;
                }
                case THROW: {
                    Object arg = spec.create();
                    String expected = Digest.hex(Digest.of(arg));
                    try {
                        svc.fail(arg);
                        throw new AssertionError("throw: the call returned normally; expected BenchException");
                    } catch (BenchException e) {
                        check(expected.equals(e.getMessage()), "throw: exception message '" + e.getMessage()
                                + "', expected '" + expected + "'");
                        h = Digest.of(h, e.getMessage());
                    }
                    break;
                }
                default:
                    throw new AssertionError(k);
            }
        }
        return h;
    }

    private long expectServer(long expected) throws RemoteException {
        long got = svc.lastReceivedDigest();
        check(got == expected, "the server received arguments with digest " + Digest.hex(got) + ", expected "
                + Digest.hex(expected));
        return got;
    }

    private static Object expectEqual(Object sent, Object got) {
        check(Objects.deepEquals(sent, got), "result differs from what was sent: sent " + describe(sent) + ", got "
                + describe(got));
        check(Digest.of(sent) == Digest.of(got), "result digest differs from what was sent");
        return got;
    }

    private static String describe(Object o) {
        if (o == null) {
            return "null";
        }
        String s = o.getClass().isArray() ? o.getClass().getComponentType() + "[" + java.lang.reflect.Array.getLength(o)
                + "]" : o.getClass().getSimpleName();
        return s + " digest " + Digest.hex(Digest.of(o));
    }

    private static void check(boolean ok, String message) {
        if (!ok) {
            throw new AssertionError(message);
        }
    }

    /** All threads call star once behind a barrier; every result must equal what was sent. */
    private long verifyStar(ObjectSpec spec, int threads) throws Exception {
        CyclicBarrier barrier = new CyclicBarrier(threads);
        AtomicReference<Throwable> failure = new AtomicReference<>();
        long[] digests = new long[threads];
        Thread[] ts = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                try {
                    Object arg = spec.create();
                    barrier.await();
                    digests[id] = Digest.of(expectEqual(arg, svc.star(arg)));
                } catch (Throwable e) {
                    failure.compareAndSet(null, e);
                    barrier.reset();
                }
            }, "star-verify-" + t);
            ts[t].start();
        }
        for (Thread t : ts) {
            t.join();
        }
        if (failure.get() != null) {
            throw new AssertionError("star: " + failure.get(), failure.get());
        }
        long h = Digest.EMPTY;
        for (long d : digests) {
            h = Digest.mix(h, d);
        }
        return h;
    }

    private long verifyRaw(int size, int call) throws Exception {
        int port = svc.openRawEcho(size);
        try (Socket s = new Socket(host, port)) {
            s.setTcpNoDelay(true);
            s.setSoTimeout(10_000);
            byte[] sent = (byte[]) new ObjectSpec(ObjectSpec.Kind.RAW, size).create();
            sent[0] = (byte) call;
            byte[] got = new byte[size];
            s.getOutputStream().write(sent);
            check(PingServiceImpl.readFully(s.getInputStream(), got), "raw_tcp: the echo server closed at once");
            check(Arrays.equals(sent, got), "raw_tcp: echoed bytes differ from those sent");
            return Digest.of(got);
        }
    }

    // ------------------------------------------------------------------ callback

    private CallbackImpl callback() throws RemoteException {
        if (callback == null) {
            CallbackImpl cb = new CallbackImpl();
            cb.stub = (PingService.Callback) UnicastRemoteObject.exportObject(cb, 0);
            callback = cb;
        }
        return callback;
    }

    /** The client's callback object for pingpong: returns its argument and counts the calls. */
    static final class CallbackImpl implements PingService.Callback {
        final AtomicLong count = new AtomicLong();
        PingService.Callback stub;

        @Override
        public Object pong(Object o) {
            count.incrementAndGet();
            return o;
        }
    }
}
