package dev.remora.bench.apps;

import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.rmi.NotBoundException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * One rank of an app, a JVM of its own ({@link Launcher} starts them). Rank 0 creates the registry on
 * {@code --port} and binds the barrier ({@code coordinator}); every rank binds its peer object as {@code rank-<i>}
 * and looks the others up. Then: setup, barrier, timed {@link App#run}, barrier, {@link App#check}, one line on
 * stdout:
 * <pre>app-rank app=sor rank=0 ranks=2 size=comm compute_ms=.. own_ms=.. comm_ms=.. call_ms=.. calls=.. bytes=.. check_ms=.. cpu_ms=.. check=ok</pre>
 * and a last barrier. Ranks other than 0 then exit; rank 0, which holds the registry and the barrier, exits when its
 * stdin closes (the launcher closes it once the others are gone), so no rank loses a peer mid-call.
 * Exit status 0 when the check passed, 1 when the answer is wrong, 2 on any other failure.
 *
 * <p>With {@code -Dapps.threadCpu=true} (a diagnostic: {@code --jvm-opts} of the launcher) the rank also prints, just
 * before the timed phase and again after the check, its threads' CPU time so far, summed by thread name (digits at the
 * end folded, so {@code [C2 CompilerThre]x1=260ms}): which of start-up, the JIT, the application's threads and RMI's
 * takes the difference between two configurations. From {@code /proc/self/task}, in 10 ms clock ticks.
 */
public final class Rank {

    private Rank() {
    }

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (Throwable t) {
            System.err.println("app rank failed: " + t);
            t.printStackTrace();
            System.exit(2);
        }
    }

    static int run(String[] args) throws Exception {
        Map<String, String> o = parse(args);
        String appName = req(o, "app");
        int rank = Integer.parseInt(req(o, "rank"));
        int ranks = Integer.parseInt(req(o, "ranks"));
        int port = Integer.parseInt(req(o, "port"));
        String size = o.getOrDefault("size", "tiny");
        if (System.getProperty("java.rmi.server.hostname") == null) {
            System.setProperty("java.rmi.server.hostname", "127.0.0.1");
        }
        App app = App.byName(appName);
        Map<String, String> params = params(app, size, o.getOrDefault("params", ""));
        Ctx ctx = new Ctx(rank, ranks, params);

        Registry registry;
        CoordinatorImpl coordinatorImpl = null;
        Coordinator coordinator;
        if (rank == 0) {
            registry = LocateRegistry.createRegistry(port);
            coordinatorImpl = new CoordinatorImpl(ranks);
            registry.rebind("coordinator", UnicastRemoteObject.exportObject(coordinatorImpl, 0));
            coordinator = coordinatorImpl; // rank 0 arrives locally
        } else {
            registry = LocateRegistry.getRegistry("127.0.0.1", port);
            coordinator = (Coordinator) lookup(registry, "coordinator");
        }
        Remote impl = app.peer(ctx);
        registry.rebind("rank-" + rank, UnicastRemoteObject.exportObject(impl, 0));
        for (int r = 0; r < ranks; r++) {
            ctx.peers[r] = r == rank ? impl : lookup(registry, "rank-" + r);
        }
        app.setup(ctx);
        coordinator.barrier(rank);
        ctx.resetCounters();
        if (Boolean.getBoolean("apps.threadCpu")) {
            printThreadCpu();
        }
        long t0 = System.nanoTime();
        app.run(ctx);
        long t1 = System.nanoTime();
        coordinator.barrier(rank);
        long t2 = System.nanoTime(); // compute phase: until the slowest rank is done
        long calls = ctx.calls(), bytes = ctx.bytes(), comm = ctx.commNanos(), inCalls = ctx.callNanos();
        String wrong = app.check(ctx);
        long t3 = System.nanoTime();
        long cpu = processCpuNanos();
        if (Boolean.getBoolean("apps.threadCpu")) {
            printThreadCpu();
        }
        System.out.println(String.format(Locale.ROOT,
                "app-rank app=%s rank=%d ranks=%d size=%s compute_ms=%.3f own_ms=%.3f comm_ms=%.3f call_ms=%.3f"
                        + " calls=%d bytes=%d"
                        + " check_ms=%.3f cpu_ms=%.1f check=%s",
                appName, rank, ranks, size, (t2 - t0) / 1e6, (t1 - t0) / 1e6, comm / 1e6, inCalls / 1e6, calls, bytes,
                (t3 - t2) / 1e6, cpu / 1e6, wrong == null ? "ok" : "wrong"));
        if (wrong != null) {
            System.err.println("app " + appName + " rank " + rank + ": wrong answer: " + wrong);
        }
        System.out.flush();
        coordinator.barrier(rank);
        if (rank == 0) {
            InputStream in = System.in;
            while (in.read() >= 0) {
                // the launcher closes stdin when the other ranks are gone
            }
        }
        return wrong == null ? 0 : 1;
    }

    static Map<String, String> params(App app, String size, String overrides) {
        String base = app.sizes().get(size);
        if (base == null) {
            throw new IllegalArgumentException("unknown size '" + size + "': known are " + app.sizes().keySet());
        }
        Map<String, String> p = new LinkedHashMap<>();
        for (String s : (base + "," + overrides).split(",")) {
            int eq = s.indexOf('=');
            if (eq > 0) {
                p.put(s.substring(0, eq).trim(), s.substring(eq + 1).trim());
            }
        }
        return p;
    }

    private static Remote lookup(Registry registry, String name) throws Exception {
        long deadline = System.nanoTime() + 60_000_000_000L;
        while (true) {
            try {
                return registry.lookup(name);
            } catch (NotBoundException | RemoteException e) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException("'" + name + "' not in the registry after 60 s", e);
                }
                Thread.sleep(20);
            }
        }
    }

    /** Diagnostic ({@code -Dapps.threadCpu=true}): this JVM's threads' CPU time so far, by name, from {@code /proc}. */
    private static void printThreadCpu() {
        java.util.TreeMap<String, long[]> byName = new java.util.TreeMap<>();
        java.io.File[] tasks = new java.io.File("/proc/self/task").listFiles();
        if (tasks == null) {
            return;
        }
        for (java.io.File t : tasks) {
            try {
                String stat = new String(java.nio.file.Files.readAllBytes(new java.io.File(t, "stat").toPath()));
                String name = stat.substring(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
                String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
                long ticks = Long.parseLong(f[11]) + Long.parseLong(f[12]);
                long[] v = byName.computeIfAbsent(name.replaceAll("[0-9]+$", "#"), k -> new long[2]);
                v[0] += ticks;
                v[1]++;
            } catch (Exception e) {
                // a thread gone meanwhile
            }
        }
        StringBuilder b = new StringBuilder("app-threads");
        byName.forEach((n, v) -> b.append(String.format(Locale.ROOT, " [%s]x%d=%dms", n, v[1], v[0] * 10)));
        System.out.println(b);
    }

    private static long processCpuNanos() {
        java.lang.management.OperatingSystemMXBean os = ManagementFactory.getOperatingSystemMXBean();
        if (os instanceof com.sun.management.OperatingSystemMXBean) {
            return ((com.sun.management.OperatingSystemMXBean) os).getProcessCpuTime();
        }
        return -1;
    }

    static Map<String, String> parse(String[] args) {
        Map<String, String> o = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            if (!args[i].startsWith("--") || i + 1 >= args.length) {
                throw new IllegalArgumentException("expected --name value, got '" + args[i] + "'");
            }
            o.put(args[i].substring(2), args[++i]);
        }
        return o;
    }

    static String req(Map<String, String> o, String name) {
        String v = o.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing --" + name);
        }
        return v;
    }
}
