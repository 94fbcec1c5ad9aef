package dev.remora.bench.apps;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * Starts the N rank JVMs of one app run and measures it:
 * <pre>java -cp bench/target/classes dev.remora.bench.apps.Launcher --app sor --ranks 2 --size comm \
 *     [--params n=200,iters=50] [--jvm-opts "-Xmx512m -javaagent:... -Dremora..."] [--java PATH] \
 *     [--cpus 0,1|none] [--timeout-s 600] [--log-dir DIR] [--tag NAME]</pre>
 * Every rank runs the same java with the same options ({@code --jvm-opts}, which is where {@code -javaagent} and
 * {@code -D} options go) and, unless {@code --cpus none}, is pinned with taskset to one CPU of the list, round robin.
 * Prints the ranks' {@code app-rank} lines and one summary:
 * <pre>app-run app=sor ranks=2 size=comm wall_ms=.. compute_ms=.. comm_ms=.. cpu_ms=.. calls=.. bytes=.. check=ok call_ms=..</pre>
 * wall_ms: from starting the first JVM to the exit of the last (JVM start, setup and check included);
 * compute_ms and comm_ms: the slowest rank's; call_ms: the largest time a rank's main thread spent inside its own
 * remote calls (the rest of comm_ms is waiting for a peer's data); cpu_ms: the ranks' CPU time summed (each JVM's own count when it
 * reported, so its exit is left out); calls, bytes: summed; check: ok, wrong (a rank's answer), or incomplete (a
 * rank's line missing, e.g. cut by JVM output such as -XX:+PrintCompilation on the same stdout). Exit status: 0 all
 * ranks right, 1 a wrong answer, 2 a failure.
 */
public final class Launcher {

    private Launcher() {
    }

    public static void main(String[] args) {
        try {
            System.exit(run(args));
        } catch (Throwable t) {
            System.err.println("app launcher failed: " + t);
            System.exit(2);
        }
    }

    static int run(String[] args) throws Exception {
        Map<String, String> o = Rank.parse(args);
        String app = Rank.req(o, "app");
        int ranks = Integer.parseInt(o.getOrDefault("ranks", "2"));
        String size = o.getOrDefault("size", "tiny");
        App.byName(app); // fail early on a bad name
        String java = o.getOrDefault("java", System.getProperty("java.home") + "/bin/java");
        String cp = o.getOrDefault("cp", System.getProperty("java.class.path"));
        String cpus = o.getOrDefault("cpus", defaultCpus());
        long timeoutS = Long.parseLong(o.getOrDefault("timeout-s", "600"));
        File logDir = o.containsKey("log-dir") ? new File(o.get("log-dir")) : null;
        String tag = o.getOrDefault("tag", app + "-" + size + "-" + ranks);
        List<String> jvmOpts = new ArrayList<>();
        for (String s : o.getOrDefault("jvm-opts", "").trim().split("\\s+")) {
            if (!s.isEmpty()) {
                jvmOpts.add(s);
            }
        }
        String[] cpuList = cpus.equals("none") ? new String[0] : cpus.split(",");
        int port = freePort();

        List<Process> procs = new ArrayList<>();
        List<String> lines = Collections.synchronizedList(new ArrayList<>());
        List<Thread> readers = new ArrayList<>();
        long start = System.nanoTime();
        try {
            for (int r = 0; r < ranks; r++) {
                List<String> cmd = new ArrayList<>();
                if (cpuList.length > 0) {
                    cmd.add("taskset");
                    cmd.add("-c");
                    cmd.add(cpuList[r % cpuList.length]);
                }
                cmd.add(java);
                cmd.addAll(jvmOpts);
                if (jvmOpts.stream().noneMatch(s -> s.startsWith("-Djava.rmi.server.hostname="))) {
                    cmd.add("-Djava.rmi.server.hostname=127.0.0.1");
                }
                Collections.addAll(cmd, "-cp", cp, Rank.class.getName(), "--app", app, "--rank", "" + r,
                        "--ranks", "" + ranks, "--port", "" + port, "--size", size);
                if (o.containsKey("params")) {
                    Collections.addAll(cmd, "--params", o.get("params"));
                }
                ProcessBuilder pb = new ProcessBuilder(cmd);
                if (logDir != null) {
                    logDir.mkdirs();
                    pb.redirectError(new File(logDir, tag + "-rank" + r + ".log"));
                } else {
                    pb.redirectError(ProcessBuilder.Redirect.INHERIT);
                }
                Process p = pb.start();
                if (r != 0) {
                    p.getOutputStream().close();
                }
                procs.add(p);
                Thread t = new Thread(() -> {
                    try (BufferedReader in = new BufferedReader(
                            new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8))) {
                        for (String line; (line = in.readLine()) != null; ) {
                            System.out.println(line);
                            if (line.startsWith("app-rank ")) {
                                lines.add(line);
                            }
                        }
                    } catch (IOException e) {
                        // the process ended
                    }
                }, "rank-" + r + "-stdout");
                t.start();
                readers.add(t);
            }
            long deadline = start + TimeUnit.SECONDS.toNanos(timeoutS);
            int worst = 0;
            for (int r = ranks - 1; r >= 0; r--) {
                Process p = procs.get(r);
                if (r == 0) {
                    p.getOutputStream().close(); // the others are gone: rank 0 may close the registry
                }
                long left = deadline - System.nanoTime();
                if (!p.waitFor(Math.max(left, 1), TimeUnit.NANOSECONDS)) {
                    System.err.println("app launcher: " + tag + " rank " + r + " ran longer than " + timeoutS
                            + " s; killing the ranks");
                    return 2;
                }
                int rc = p.exitValue();
                if (rc != 0) {
                    System.err.println("app launcher: " + tag + " rank " + r + " exited with " + rc);
                    worst = Math.max(worst, rc == 1 ? 1 : 2);
                    if (rc != 1) {
                        return 2; // the others may wait for it forever
                    }
                }
            }
            long wall = System.nanoTime() - start;
            for (Thread t : readers) {
                t.join(5000);
            }
            System.out.println(summary(app, ranks, size, wall, lines, worst));
            return worst;
        } finally {
            for (Process p : procs) {
                if (p.isAlive()) {
                    p.destroyForcibly();
                }
            }
        }
    }

    static String summary(String app, int ranks, String size, long wallNanos, List<String> lines, int worst) {
        double compute = 0, comm = 0, inCalls = 0, cpu = 0;
        long calls = 0, bytes = 0;
        boolean ok = worst == 0 && lines.size() == ranks;
        for (String line : lines) {
            Map<String, String> f = fields(line);
            compute = Math.max(compute, Double.parseDouble(f.get("compute_ms")));
            comm = Math.max(comm, Double.parseDouble(f.get("comm_ms")));
            inCalls = Math.max(inCalls, Double.parseDouble(f.getOrDefault("call_ms", "0")));
            cpu += Double.parseDouble(f.get("cpu_ms"));
            calls += Long.parseLong(f.get("calls"));
            bytes += Long.parseLong(f.get("bytes"));
            ok &= "ok".equals(f.get("check"));
        }
        return String.format(Locale.ROOT,
                "app-run app=%s ranks=%d size=%s wall_ms=%.1f compute_ms=%.3f comm_ms=%.3f cpu_ms=%.1f calls=%d"
                        + " bytes=%d check=%s call_ms=%.3f",
                app, ranks, size, wallNanos / 1e6, compute, comm, cpu, calls, bytes,
                ok ? "ok" : lines.size() < ranks ? "incomplete" : "wrong", inCalls);
    }

    static Map<String, String> fields(String line) {
        Map<String, String> f = new LinkedHashMap<>();
        for (String s : line.trim().split("\\s+")) {
            int eq = s.indexOf('=');
            if (eq > 0) {
                f.put(s.substring(0, eq), s.substring(eq + 1));
            }
        }
        return f;
    }

    private static String defaultCpus() {
        int n = Runtime.getRuntime().availableProcessors();
        if (n < 2 || !new File("/usr/bin/taskset").canExecute()) {
            return "none";
        }
        StringBuilder b = new StringBuilder("0");
        for (int i = 1; i < n; i++) {
            b.append(',').append(i);
        }
        return b.toString();
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            return s.getLocalPort();
        }
    }
}
