package dev.remora.bench.apps;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * The report of {@code scripts/compare.sh --apps}: reads {@code DIR/raw/apps.csv} (one row per launcher run:
 * {@code config,round,app,size,ranks,wall_ms,compute_ms,comm_ms,cpu_ms,calls,bytes,check[,call_ms]}) and the ranks'
 * {@code [remora] stats-csv} lines in {@code DIR/logs}, writes {@code DIR/summary.md} (after {@code header.txt})
 * with one table per app, size and rank count: per configuration the medians over rounds of wall time (JVM start
 * included), compute-phase time, its share spent communicating, CPU time of all ranks, remote calls, and each
 * against the baseline's median (ratio; below 1 is faster). Also writes {@code DIR/points-compute.csv} and
 * {@code DIR/points-wall.csv} for the box plots: per run, the % of time saved against the baseline's median of the
 * same app, size and ranks, charted per app and over all apps. The report ends with the paired ratios: per app, size
 * and rank count, the median over rounds of each run's figure divided by the baseline's run of the same round (the
 * rounds interleave the configurations, so a pair ran minutes apart, not the whole run apart).
 */
public final class AppsReport {

    private AppsReport() {
    }

    record Run(String config, int round, String app, String size, int ranks, double wall, double compute,
            double comm, double cpu, long calls, long bytes, boolean ok, double inCalls) {
    }

    public static void main(String[] args) throws IOException {
        Map<String, String> o = Rank.parse(args);
        Path dir = Path.of(Rank.req(o, "dir"));
        List<String> configs = Arrays.asList(Rank.req(o, "configs").split(","));
        String baseline = o.getOrDefault("baseline", configs.get(0));
        List<Run> runs = read(dir.resolve("raw/apps.csv"));
        StringBuilder md = new StringBuilder();
        Path header = dir.resolve("header.txt");
        if (Files.exists(header)) {
            md.append("```\n").append(Files.readString(header)).append("```\n\n");
        }
        md.append(report(runs, configs, baseline, dir.resolve("logs")));
        Files.writeString(dir.resolve("summary.md"), md.toString(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("points-compute.csv"), points(runs, baseline, true), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("points-wall.csv"), points(runs, baseline, false), StandardCharsets.UTF_8);
        System.out.print(md);
    }

    static List<Run> read(Path csv) throws IOException {
        List<Run> runs = new ArrayList<>();
        for (String line : Files.readAllLines(csv, StandardCharsets.UTF_8)) {
            String[] f = line.split(",");
            if (f.length < 12 || f[0].equals("config")) {
                continue;
            }
            runs.add(new Run(f[0], Integer.parseInt(f[1]), f[2], f[3], Integer.parseInt(f[4]),
                    Double.parseDouble(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                    Double.parseDouble(f[8]), Long.parseLong(f[9]), Long.parseLong(f[10]), f[11].equals("ok"),
                    f.length > 12 && !f[12].isEmpty() ? Double.parseDouble(f[12]) : Double.NaN));
        }
        return runs;
    }

    static double median(List<Double> v) {
        if (v.isEmpty()) {
            return Double.NaN;
        }
        double[] s = v.stream().mapToDouble(Double::doubleValue).sorted().toArray();
        int m = s.length / 2;
        return s.length % 2 == 1 ? s[m] : (s[m - 1] + s[m]) / 2;
    }

    private static String key(Run r) {
        return r.app() + " " + r.size() + " " + r.ranks();
    }

    /** The runs per app, size and rank count, in the order they first appear. */
    private static Map<String, List<Run>> groups(List<Run> runs) {
        Map<String, List<Run>> groups = new LinkedHashMap<>();
        for (Run r : runs) {
            groups.computeIfAbsent(key(r), k -> new ArrayList<>()).add(r);
        }
        return groups;
    }

    static String report(List<Run> runs, List<String> configs, String baseline, Path logs) throws IOException {
        Map<String, List<Run>> groups = groups(runs);
        Map<String, long[]> stats = remoraStats(logs);
        Map<String, Set<String>> candidates = onewayCandidates(logs);
        StringBuilder b = new StringBuilder("# The papers' applications, plain RMI against Remora\n\n");
        b.append("Per app, size and number of ranks (each rank a JVM): the median over rounds of each figure, and in "
                + "brackets its ratio to " + baseline + "'s median (below 1: faster / cheaper). wall: from starting "
                + "the first rank JVM to the exit of the last (JVM start, agent start, input, check included). "
                + "compute: the timed compute phase (barrier to barrier, communication included). comm: the share of "
                + "the compute phase the slowest rank spent in remote calls or waiting for a peer's data. in calls: the "
                + "longest time a rank's main thread spent inside its own remote calls (the rest of comm is waiting "
                + "for a peer: its computing, its calls, and the wake-ups of the app's threads). CPU: all "
                + "ranks' CPU time (JIT, GC and a spinning transport included). calls: remote calls the app made in "
                + "the compute phase (all ranks). Remora/JRMP: calls on Remora's path and on JRMP per rank JVM's "
                + "agent statistics (whole run, registry lookups included). Box plots: % of time saved against "
                + baseline + ", in the style of Figure 5 of \"More Efficient Serialization and RMI for Java\".\n\n");
        String currentApp = null;
        for (Map.Entry<String, List<Run>> g : groups.entrySet()) {
            String app = g.getValue().get(0).app();
            if (!app.equals(currentApp)) {
                currentApp = app;
                b.append("## ").append(app).append("\n\n");
                b.append("![").append(app).append(": % of compute phase saved](plots/compute-").append(app)
                        .append(".png)\n\n");
                Set<String> named = candidates.get(app);
                if (named != null) {
                    b.append("Named by the ranks' `remora.stats` as methods that could be declared one-way "
                            + "(`remora.async`): `").append(String.join("`, `", named)).append("`.\n\n");
                }
            }
            b.append("### ").append(app).append(", size ").append(g.getValue().get(0).size()).append(", ")
                    .append(g.getValue().get(0).ranks()).append(" ranks\n\n");
            b.append("| config | runs | wall ms | compute ms | comm | in calls ms | CPU ms | calls | MB sent | Remora/JRMP"
                    + " | check |\n");
            b.append("|---|---|---|---|---|---|---|---|---|---|---|\n");
            double[] base = medians(g.getValue(), baseline);
            for (String c : configs) {
                List<Run> rs = new ArrayList<>();
                for (Run r : g.getValue()) {
                    if (r.config().equals(c)) {
                        rs.add(r);
                    }
                }
                if (rs.isEmpty()) {
                    continue;
                }
                double[] m = medians(g.getValue(), c);
                long ok = rs.stream().filter(Run::ok).count();
                long[] st = stats.get(c + "|" + g.getKey().replace(' ', '-'));
                b.append(String.format(Locale.ROOT, "| %s | %d | %s | %s | %.0f%% | %s | %s | %.0f | %.2f | %s | %s |%n",
                        c, rs.size(), cell(m[0], base[0], c.equals(baseline)), cell(m[1], base[1], c.equals(baseline)),
                        100 * m[2] / m[1], Double.isNaN(m[6]) ? "-" : cell(m[6], base[6], c.equals(baseline)),
                        cell(m[3], base[3], c.equals(baseline)), m[4], m[5] / 1e6,
                        st == null ? "-" : st[0] + "/" + st[1], ok == rs.size() ? "ok" : (rs.size() - ok) + " WRONG"));
            }
            b.append('\n');
        }
        b.append("## All apps\n\n![all apps: % of compute phase saved](plots/compute-all.png)\n\n"
                + "![all apps: % of wall time saved](plots/wall-all.png)\n\n");
        b.append(paired(groups.values(), configs, baseline));
        return b.toString();
    }

    /**
     * The paired ratios: per app, size and rank count and per configuration, the median over rounds of the run's
     * wall, compute and CPU time each divided by the baseline's run of the same round; rounds without both runs are
     * left out ({@code groups}: the runs of each app, size and rank count). The tables above divide medians by
     * medians; a machine whose speed drifts over the whole compare moves those, while a pair ran minutes apart.
     */
    static String paired(Iterable<List<Run>> groups, List<String> configs, String baseline) {
        List<String> others = configs.stream().filter(c -> !c.equals(baseline)).toList();
        StringBuilder b = new StringBuilder("## Paired ratios\n\n");
        b.append("Per app, size and ranks: the median over rounds of wall / compute / CPU time of each configuration's"
                + " run divided by " + baseline + "'s run of the same round (pairs: how many rounds had both runs)."
                + " Below 1: faster / cheaper.\n\n");
        b.append("| app | size | ranks |");
        others.forEach(c -> b.append(' ').append(c).append(" |"));
        b.append("\n|---|---|---|");
        others.forEach(c -> b.append("---|"));
        b.append('\n');
        for (List<Run> g : groups) {
            b.append("| ").append(g.get(0).app()).append(" | ").append(g.get(0).size()).append(" | ")
                    .append(g.get(0).ranks()).append(" |");
            Map<Integer, Run> baseByRound = new TreeMap<>();
            for (Run r : g) {
                if (r.config().equals(baseline)) {
                    baseByRound.put(r.round(), r);
                }
            }
            for (String c : others) {
                List<Double> wall = new ArrayList<>(), compute = new ArrayList<>(), cpu = new ArrayList<>();
                for (Run r : g) {
                    Run base = baseByRound.get(r.round());
                    if (r.config().equals(c) && base != null) {
                        wall.add(r.wall() / base.wall());
                        compute.add(r.compute() / base.compute());
                        cpu.add(r.cpu() / base.cpu());
                    }
                }
                b.append(wall.isEmpty() ? " - |" : String.format(Locale.ROOT, " %.2f / %.2f / %.2f (%d) |",
                        median(wall), median(compute), median(cpu), wall.size()));
            }
            b.append('\n');
        }
        return b.toString();
    }

    private static String cell(double v, double base, boolean isBase) {
        if (isBase || Double.isNaN(base) || base == 0) {
            return String.format(Locale.ROOT, "%.1f", v);
        }
        return String.format(Locale.ROOT, "%.1f (%.2f)", v, v / base);
    }

    /** wall, compute, comm, cpu, calls, bytes, in calls: medians over the runs of one configuration. */
    private static double[] medians(List<Run> group, String config) {
        List<List<Double>> v = new ArrayList<>();
        for (int i = 0; i < 7; i++) {
            v.add(new ArrayList<>());
        }
        for (Run r : group) {
            if (r.config().equals(config)) {
                v.get(0).add(r.wall());
                v.get(1).add(r.compute());
                v.get(2).add(r.comm());
                v.get(3).add(r.cpu());
                v.get(4).add((double) r.calls());
                v.get(5).add((double) r.bytes());
                if (!Double.isNaN(r.inCalls())) {
                    v.get(6).add(r.inCalls());
                }
            }
        }
        double[] m = new double[7];
        for (int i = 0; i < 7; i++) {
            m[i] = median(v.get(i));
        }
        return m;
    }

    static String points(List<Run> runs, String baseline, boolean compute) {
        Map<String, List<Double>> base = new TreeMap<>();
        for (Run r : runs) {
            if (r.config().equals(baseline)) {
                base.computeIfAbsent(key(r), k -> new ArrayList<>()).add(compute ? r.compute() : r.wall());
            }
        }
        String prefix = compute ? "compute-" : "wall-";
        StringBuilder b = new StringBuilder("chart,config,saved_pct\n");
        for (String chart : new String[] {"app", "all"}) {
            for (Run r : runs) {
                List<Double> bs = base.get(key(r));
                if (r.config().equals(baseline) || bs == null) {
                    continue;
                }
                double saved = 100 * (1 - (compute ? r.compute() : r.wall()) / median(bs));
                b.append(prefix).append(chart.equals("all") ? "all" : r.app()).append(',').append(r.config())
                        .append(',').append(String.format(Locale.ROOT, "%.2f", saved)).append('\n');
            }
        }
        return b.toString();
    }

    /** A rank's log: {@code <config>-r<round>-<app>-<size>-<ranks>-rank<i>.log}. */
    private static final Pattern RANK_LOG = Pattern.compile("(.+)-r(\\d+)-(.+-.+-\\d+)-rank\\d+\\.log");
    private static final String CANDIDATE = "[remora] stats: one-way candidate ";

    /**
     * Per app: the methods the ranks' agent statistics named as one-way candidates (lines
     * {@code [remora] stats: one-way candidate Class#method(types): ...}), in any configuration and round.
     */
    static Map<String, Set<String>> onewayCandidates(Path logs) throws IOException {
        Map<String, Set<String>> out = new TreeMap<>();
        if (!Files.isDirectory(logs)) {
            return out;
        }
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                Matcher m = RANK_LOG.matcher(f.getFileName().toString());
                if (!m.matches()) {
                    continue;
                }
                String app = m.group(3).substring(0, m.group(3).indexOf('-'));
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    int at = line.indexOf(CANDIDATE);
                    if (at >= 0) {
                        String rest = line.substring(at + CANDIDATE.length());
                        int colon = rest.indexOf(": ");
                        out.computeIfAbsent(app, k -> new TreeSet<>()).add(colon < 0 ? rest : rest.substring(0, colon));
                    }
                }
            }
        }
        return out;
    }

    /** Per "config|app-size-ranks": calls on Remora's path and on JRMP, summed over the ranks of the first round. */
    static Map<String, long[]> remoraStats(Path logs) throws IOException {
        Map<String, long[]> out = new LinkedHashMap<>();
        if (!Files.isDirectory(logs)) {
            return out;
        }
        Map<String, List<long[]>> perRun = new LinkedHashMap<>();
        try (Stream<Path> files = Files.list(logs)) {
            for (Path f : (Iterable<Path>) files.sorted()::iterator) {
                String name = f.getFileName().toString();
                Matcher m = RANK_LOG.matcher(name);
                if (!m.matches()) {
                    continue;
                }
                long remora = 0, jrmp = 0;
                boolean found = false;
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (line.contains("[remora] stats-csv")) {
                        found = true;
                        remora = num(line, "calls_remora");
                        jrmp = num(line, "calls_jrmp");
                    }
                }
                if (found) {
                    String k = m.group(1) + "|" + m.group(3);
                    List<long[]> l = perRun.computeIfAbsent(k + "|" + m.group(2), x -> new ArrayList<>());
                    l.add(new long[] {remora, jrmp});
                }
            }
        }
        // one run's sum over its ranks, the first round that has it
        for (Map.Entry<String, List<long[]>> e : perRun.entrySet()) {
            String k = e.getKey().substring(0, e.getKey().lastIndexOf('|'));
            if (!out.containsKey(k)) {
                long[] s = new long[2];
                for (long[] v : e.getValue()) {
                    s[0] += v[0];
                    s[1] += v[1];
                }
                out.put(k, s);
            }
        }
        return out;
    }

    private static long num(String line, String key) {
        int at = line.indexOf(key + "=");
        if (at < 0) {
            return 0;
        }
        int end = at + key.length() + 1;
        int stop = end;
        while (stop < line.length() && Character.isDigit(line.charAt(stop))) {
            stop++;
        }
        return stop > end ? Long.parseLong(line.substring(end, stop)) : 0;
    }
}
