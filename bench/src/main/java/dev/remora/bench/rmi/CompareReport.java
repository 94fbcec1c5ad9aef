package dev.remora.bench.rmi;

import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.ToDoubleBiFunction;
import java.util.function.ToDoubleFunction;

/**
 * Turns the per-round CSV files of {@code scripts/compare.sh} into a table shaped like Table 3 of "KaRMI": one row
 * per kernel/object, one column per configuration with microseconds per call (calls/s for star) and the share of
 * time saved against the baseline. Per kernel/object and configuration the figure is the median of the round
 * medians. Client-side {@code [remora] stats-csv} lines found in the logs show calls on Remora's path vs JRMP.
 *
 * <p>Reads {@code DIR/raw/*.csv}, {@code DIR/logs/<config>-r<N>-client.log} and the fabric floors in
 * {@code DIR/floor} ({@link FloorReport}); writes {@code DIR/summary.csv} and
 * {@code DIR/summary.md} (prefixed by {@code DIR/header.txt} when present) and prints the table on stdout.
 */
public final class CompareReport {

    /** Aggregated figures of one kernel/object under one configuration. */
    public record Cell(int rounds, double medianUs, double p90Us, double p99Us, double callsPerS, double cpuUs,
            double steadyUs) {
        public Cell(int rounds, double medianUs, double p90Us, double p99Us, double callsPerS) {
            this(rounds, medianUs, p90Us, p99Us, callsPerS, Double.NaN, Double.NaN);
        }
    }

    /** One table row: the kernel/object and a cell per configuration. */
    public record Row(String kernel, String object, int n, String title, Map<String, Cell> cells) {
        boolean isThroughput() {
            return kernel.equals(Kernel.STAR.id()) || kernel.equals(Kernel.ONEWAY.id())
                    || kernel.equals(Kernel.ONEWAY_STAR.id());
        }
    }

    private final List<String> configs;
    private final String baseline;
    private final List<Row> rows;

    private CompareReport(List<String> configs, String baseline, List<Row> rows) {
        this.configs = configs;
        this.baseline = baseline;
        this.rows = rows;
    }

    /** The configurations in column order. */
    public List<String> configs() {
        return configs;
    }

    /** The aggregated cell of kernel/object/n under config, or null when that case did not run. */
    public Cell cell(String kernel, String object, int n, String config) {
        for (Row r : rows) {
            if (r.kernel().equals(kernel) && r.object().equals(object) && r.n() == n) {
                return r.cells().get(config);
            }
        }
        return null;
    }

    /** Groups the rows and takes the median of the round medians (and of p90, p99, calls/s). */
    public static CompareReport of(List<ResultRow> input, List<String> configs, String baseline) {
        Map<String, Map<String, List<ResultRow>>> byCase = new LinkedHashMap<>();
        Map<String, ResultRow> firstOfCase = new LinkedHashMap<>();
        for (ResultRow r : input) {
            String key = r.kernel() + "|" + r.object() + "|" + r.n();
            firstOfCase.putIfAbsent(key, r);
            byCase.computeIfAbsent(key, x -> new LinkedHashMap<>()).computeIfAbsent(r.config(), x -> new ArrayList<>())
                    .add(r);
        }
        List<Row> rows = new ArrayList<>();
        for (Map.Entry<String, Map<String, List<ResultRow>>> e : byCase.entrySet()) {
            ResultRow first = firstOfCase.get(e.getKey());
            Map<String, Cell> cells = new LinkedHashMap<>();
            for (Map.Entry<String, List<ResultRow>> c : e.getValue().entrySet()) {
                List<ResultRow> rs = c.getValue();
                double[] med = new double[rs.size()];
                double[] p90 = new double[rs.size()];
                double[] p99 = new double[rs.size()];
                double[] cps = new double[rs.size()];
                for (int i = 0; i < rs.size(); i++) {
                    med[i] = rs.get(i).medianUs();
                    p90[i] = rs.get(i).p90Us();
                    p99[i] = rs.get(i).p99Us();
                    cps[i] = rs.get(i).callsPerS();
                }
                cells.put(c.getKey(), new Cell(rs.size(), Stats.median(med), Stats.median(p90), Stats.median(p99),
                        Stats.median(cps), medianOfMeasured(rs, ResultRow::cpuUs),
                        medianOfMeasured(rs, ResultRow::steadyUs)));
            }
            String label = labelOf(first.kernel());
            String obj = first.objectLabel();
            rows.add(new Row(first.kernel(), first.object(), first.n(), obj.isEmpty() ? label : label + " " + obj,
                    cells));
        }
        return new CompareReport(configs, baseline, rows);
    }

    /** Median of an optional per-round figure over the rounds that have it; NaN when none has. */
    private static double medianOfMeasured(List<ResultRow> rs, ToDoubleFunction<ResultRow> figure) {
        return Stats.medianOfPresent(rs.stream().mapToDouble(figure).toArray());
    }

    private static String labelOf(String kernelId) {
        if (kernelId.equals(BenchClient.COLD_ID)) {
            return BenchClient.COLD_LABEL;
        }
        try {
            return Kernel.byId(kernelId).label();
        } catch (IllegalArgumentException e) {
            return kernelId;
        }
    }

    public List<Row> rows() {
        return rows;
    }

    /**
     * Share of time saved against the baseline in percent ({@code (base - t) / base}); for star, from the calls/s
     * ({@code 1 - base_rate / rate}, the same thing for time per call). NaN when either side is missing.
     */
    public double savedPercent(Row row, String config) {
        Cell base = row.cells().get(baseline);
        Cell c = row.cells().get(config);
        if (base == null || c == null) {
            return Double.NaN;
        }
        if (row.isThroughput()) {
            return c.callsPerS() > 0 ? 100.0 * (1.0 - base.callsPerS() / c.callsPerS()) : Double.NaN;
        }
        return base.medianUs() > 0 ? 100.0 * (base.medianUs() - c.medianUs()) / base.medianUs() : Double.NaN;
    }

    /** Share of CPU time per call (both JVMs) saved against the baseline in percent; NaN when not measured. */
    public double cpuSavedPercent(Row row, String config) {
        return savedPercent(row, config, Cell::cpuUs);
    }

    /** Median over rows of {@link #cpuSavedPercent}, NaN when no row has CPU figures for both. */
    public double medianCpuSaved(String config) {
        return medianOverRows(config, this::cpuSavedPercent);
    }

    /** Share of steady-state time ({@link Stats.Summary#steadyUs}) saved against the baseline; NaN when missing. */
    public double steadySavedPercent(Row row, String config) {
        return savedPercent(row, config, Cell::steadyUs);
    }

    /** Median over rows of {@link #steadySavedPercent}, NaN when no row has steady figures for both. */
    public double medianSteadySaved(String config) {
        return medianOverRows(config, this::steadySavedPercent);
    }

    /** {@code (base - value) / base} in percent for one per-call metric of the cells; NaN when either is missing. */
    private double savedPercent(Row row, String config, ToDoubleFunction<Cell> metric) {
        Cell base = row.cells().get(baseline);
        Cell c = row.cells().get(config);
        if (base == null || c == null || !(metric.applyAsDouble(base) > 0) || Double.isNaN(metric.applyAsDouble(c))) {
            return Double.NaN;
        }
        return 100.0 * (metric.applyAsDouble(base) - metric.applyAsDouble(c)) / metric.applyAsDouble(base);
    }

    private boolean has(ToDoubleFunction<Cell> metric) {
        for (Row r : rows) {
            for (Cell c : r.cells().values()) {
                if (!Double.isNaN(metric.applyAsDouble(c))) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A cell of a secondary table: the metric with one decimal and, but for the baseline, the share saved. */
    private String metricCellText(Row r, String config, ToDoubleFunction<Cell> metric) {
        Cell c = r.cells().get(config);
        if (c == null || Double.isNaN(metric.applyAsDouble(c))) {
            return "-";
        }
        String value = String.format(Locale.ROOT, "%.1f", metric.applyAsDouble(c));
        double saved = savedPercent(r, config, metric);
        if (config.equals(baseline) || Double.isNaN(saved)) {
            return value;
        }
        return String.format(Locale.ROOT, "%s (%+.0f%%)", value, saved).replace("(+", "(");
    }

    /**
     * The CPU table: CPU time both JVMs (all their threads) spent per timed call, median over rounds, and the share
     * saved against the baseline. Unlike latency it does not include the time the machine took to wake a thread,
     * so it shows what spinning costs. Empty when no row has CPU figures.
     */
    public String cpuText() {
        if (!has(Cell::cpuUs)) {
            return "";
        }
        return table("CPU us per call, both JVMs", false, (r, c) -> metricCellText(r, c, Cell::cpuUs),
                "median % CPU saved vs " + baseline, this::medianCpuSaved, null, null);
    }

    /**
     * The steady table: per round the lowest median of 10 consecutive blocks of timed calls, median over rounds.
     * Latency on a VM switches between a fast and a slow wake-up mode for seconds at a time, and which mode a JVM
     * pair meets moves the plain median by 10-40 %; in this table such modes cancel, so it is where small per-call
     * costs (the agent's hooks with everything off) can be read. Empty when no row has steady figures.
     */
    public String steadyText() {
        if (!has(Cell::steadyUs)) {
            return "";
        }
        return table("steady us (fastest 1/10 of each run)", false, (r, c) -> metricCellText(r, c, Cell::steadyUs),
                "median % saved vs " + baseline, this::medianSteadySaved, null, null);
    }

    /**
     * A plain-text table: a title column, one column per configuration, a row per kernel/object (star rows only if
     * {@code throughputRows}), a row with the median saving of each configuration and, unless {@code extraTitle} is
     * null, one more row of {@code extraCell} per configuration. Column widths fit the kernel/object rows' cells.
     */
    private String table(String title, boolean throughputRows, BiFunction<Row, String, String> cell,
            String summaryTitle, ToDoubleFunction<String> summary, String extraTitle, Function<String, String> extraCell) {
        int w0 = title.length();
        for (Row r : rows) {
            w0 = Math.max(w0, r.title().length());
        }
        int[] w = new int[configs.size()];
        for (int i = 0; i < configs.size(); i++) {
            w[i] = configs.get(i).length();
            for (Row r : rows) {
                w[i] = Math.max(w[i], cell.apply(r, configs.get(i)).length());
            }
        }
        StringBuilder sb = new StringBuilder(pad(title, w0));
        for (int i = 0; i < configs.size(); i++) {
            sb.append("  ").append(padLeft(configs.get(i), w[i]));
        }
        sb.append('\n');
        for (Row r : rows) {
            if (r.isThroughput() && !throughputRows) {
                continue;
            }
            sb.append(pad(r.title(), w0));
            for (int i = 0; i < configs.size(); i++) {
                sb.append("  ").append(padLeft(cell.apply(r, configs.get(i)), w[i]));
            }
            sb.append('\n');
        }
        sb.append(pad(summaryTitle, w0));
        for (int i = 0; i < configs.size(); i++) {
            double m = summary.applyAsDouble(configs.get(i));
            String t = configs.get(i).equals(baseline) || Double.isNaN(m) ? "" : String.format(Locale.ROOT, "%.1f%%", m);
            sb.append("  ").append(padLeft(t, w[i]));
        }
        sb.append('\n');
        if (extraTitle != null) {
            sb.append(pad(extraTitle, w0));
            for (int i = 0; i < configs.size(); i++) {
                sb.append("  ").append(padLeft(extraCell.apply(configs.get(i)), w[i]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** Median over rows of {@link #savedPercent} (the fat dot in "KaRMI"'s Figure 5). */
    public double medianSaved(String config) {
        return medianOverRows(config, this::savedPercent);
    }

    /** Median over rows of a per-row percentage, leaving out rows where it is NaN; NaN when none is left. */
    private double medianOverRows(String config, ToDoubleBiFunction<Row, String> percent) {
        return Stats.medianOfPresent(rows.stream().mapToDouble(r -> percent.applyAsDouble(r, config)).toArray());
    }

    private String cellText(Row r, String config) {
        Cell c = r.cells().get(config);
        if (c == null) {
            return "-";
        }
        String value = r.isThroughput() ? String.format(Locale.ROOT, "%.0f/s", c.callsPerS())
                : String.format(Locale.ROOT, "%.1f", c.medianUs());
        if (config.equals(baseline) || !r.cells().containsKey(baseline)) {
            return value;
        }
        return String.format(Locale.ROOT, "%s (%+.0f%%)", value, savedPercent(r, config)).replace("(+", "(");
    }

    /**
     * Seed 004's comparisons, as ratios within each configuration (one run, the same machine state): one-way calls/s
     * over synchronous {@code void ping()} calls/s (alone and from the star threads), a future used late and at once
     * over the same call made synchronously, and the 1000 calls of 1 ms with futures over the synchronous loop.
     * Empty unless the asynchronous kernels ran.
     */
    public String asyncText() {
        String[][] ratios = {
            {"one-way calls/s / void ping() calls/s", Kernel.ONEWAY.id(), Kernel.PING.id(), "rate"},
            {"one-way star calls/s / void ping() calls/s", Kernel.ONEWAY_STAR.id(), Kernel.PING.id(), "rate"},
            {"future used late / synchronous (time)", Kernel.FUTURE_LATE.id(), Kernel.FUTURE_SYNC.id(), "time"},
            {"future used at once / synchronous (time)", Kernel.FUTURE_NOW.id(), Kernel.FUTURE_SYNC.id(), "time"},
            {"1000 x 1 ms: futures / synchronous (time)", Kernel.FUTURE_WAIT1MS.id(), Kernel.SYNC_WAIT1MS.id(),
                "time"},
            {"1000 x 1 ms: Remora.async / synchronous (time)", Kernel.API_WAIT1MS.id(), Kernel.SYNC_WAIT1MS.id(),
                "time"},
        };
        List<String[]> lines = new ArrayList<>();
        for (String[] q : ratios) {
            Row a = rowOf(q[1]);
            Row b = rowOf(q[2]);
            if (a == null || b == null) {
                continue;
            }
            String[] line = new String[configs.size() + 1];
            line[0] = q[0];
            for (int i = 0; i < configs.size(); i++) {
                Cell x = a.cells().get(configs.get(i));
                Cell y = b.cells().get(configs.get(i));
                double v = x == null || y == null ? Double.NaN : q[3].equals("rate") ? x.callsPerS() / y.callsPerS()
                        : x.medianUs() / y.medianUs();
                line[i + 1] = Double.isNaN(v) || Double.isInfinite(v) ? "-" : String.format(Locale.ROOT, "%.3g", v);
            }
            lines.add(line);
        }
        if (lines.isEmpty()) {
            return "";
        }
        String title = "asynchronous calls: ratios within each configuration";
        int w0 = title.length();
        for (String[] l : lines) {
            w0 = Math.max(w0, l[0].length());
        }
        StringBuilder sb = new StringBuilder(pad(title, w0));
        int[] w = new int[configs.size()];
        for (int i = 0; i < configs.size(); i++) {
            w[i] = Math.max(configs.get(i).length(), 6);
            sb.append("  ").append(padLeft(configs.get(i), w[i]));
        }
        sb.append('\n');
        for (String[] l : lines) {
            sb.append(pad(l[0], w0));
            for (int i = 0; i < configs.size(); i++) {
                sb.append("  ").append(padLeft(l[i + 1], w[i]));
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    private Row rowOf(String kernel) {
        for (Row r : rows) {
            if (r.kernel().equals(kernel)) {
                return r;
            }
        }
        return null;
    }

    /** The plain-text table. {@code stats} maps a configuration to its client stats line (may be empty). */
    public String text(Map<String, String> stats) {
        return table("timings in us (star: calls/s)", true, this::cellText, "median % saved vs " + baseline,
                this::medianSaved, stats.isEmpty() ? null : "client calls remora/jrmp", c -> callsText(stats.get(c)));
    }

    /** The Markdown table. */
    public String markdown(Map<String, String> stats) {
        StringBuilder sb = new StringBuilder("| timings in µs (star: calls/s) |");
        for (String c : configs) {
            sb.append(' ').append(c).append(" |");
        }
        sb.append("\n|---|");
        for (int i = 0; i < configs.size(); i++) {
            sb.append("---:|");
        }
        sb.append('\n');
        for (Row r : rows) {
            sb.append("| ").append(r.title().replace("|", "\\|")).append(" |");
            for (String c : configs) {
                sb.append(' ').append(cellText(r, c)).append(" |");
            }
            sb.append('\n');
        }
        sb.append("| median % saved vs ").append(baseline).append(" |");
        for (String c : configs) {
            double m = medianSaved(c);
            sb.append(' ').append(c.equals(baseline) || Double.isNaN(m) ? "" : String.format(Locale.ROOT, "%.1f%%", m))
                    .append(" |");
        }
        sb.append('\n');
        if (!stats.isEmpty()) {
            sb.append("| client calls remora/jrmp |");
            for (String c : configs) {
                sb.append(' ').append(callsText(stats.get(c))).append(" |");
            }
            sb.append('\n');
        }
        return sb.toString();
    }

    /** The aggregated CSV. */
    public String csv() {
        StringBuilder sb = new StringBuilder(
                "config,kernel,object,n,rounds,median_us,p90_us,p99_us,calls_per_s,saved_pct_vs_" + baseline
                        + ",cpu_us,steady_us\n");
        for (Row r : rows) {
            for (String c : configs) {
                Cell cell = r.cells().get(c);
                if (cell == null) {
                    continue;
                }
                double s = savedPercent(r, c);
                sb.append(String.format(Locale.ROOT, "%s,%s,%s,%d,%d,%.3f,%.3f,%.3f,%.1f,%s,%s,%s%n", c, r.kernel(),
                        r.object(), r.n(), cell.rounds(), cell.medianUs(), cell.p90Us(), cell.p99Us(),
                        cell.callsPerS(), Double.isNaN(s) ? "" : String.format(Locale.ROOT, "%.2f", s),
                        ResultRow.optional(cell.cpuUs()), ResultRow.optional(cell.steadyUs())));
            }
        }
        return sb.toString();
    }

    private static String callsText(String statsLine) {
        if (statsLine == null || statsLine.isEmpty()) {
            return "-";
        }
        Map<String, String> kv = parseStats(statsLine);
        return kv.getOrDefault("calls_remora", "?") + "/" + kv.getOrDefault("calls_jrmp", "?")
                + (kv.containsKey("fallbacks") && !kv.get("fallbacks").equals("0") ? " fb " + kv.get("fallbacks") : "");
    }

    /** Parses {@code [remora] stats-csv k=v,k=v}; other text before the marker is ignored. */
    public static Map<String, String> parseStats(String line) {
        Map<String, String> out = new LinkedHashMap<>();
        int at = line.indexOf("stats-csv");
        String body = at >= 0 ? line.substring(at + "stats-csv".length()).trim() : line.trim();
        for (String kv : body.split(",")) {
            int eq = kv.indexOf('=');
            if (eq > 0) {
                out.put(kv.substring(0, eq).trim(), kv.substring(eq + 1).trim());
            }
        }
        return out;
    }

    /** Sums the numeric stats of several lines (one per round) into one line of the same shape. */
    public static String sumStats(List<String> lines) {
        Map<String, Long> sum = new LinkedHashMap<>();
        for (String l : lines) {
            for (Map.Entry<String, String> e : parseStats(l).entrySet()) {
                try {
                    sum.merge(e.getKey(), Long.parseLong(e.getValue()), Long::sum);
                } catch (NumberFormatException ignored) {
                    // Non-numeric field: not summed.
                }
            }
        }
        StringBuilder sb = new StringBuilder();
        for (Map.Entry<String, Long> e : sum.entrySet()) {
            sb.append(sb.length() == 0 ? "" : ",").append(e.getKey()).append('=').append(e.getValue());
        }
        return sb.toString();
    }

    private static String pad(String s, int w) {
        return s.length() >= w ? s : s + " ".repeat(w - s.length());
    }

    private static String padLeft(String s, int w) {
        return s.length() >= w ? s : " ".repeat(w - s.length()) + s;
    }

    public static void main(String[] args) {
        Options o = new Options()
                .option("dir", "", "results folder holding raw/*.csv and logs/*-client.log")
                .option("configs", "", "configurations in column order (default: as found)")
                .option("baseline", "vanilla", "configuration the % saved is measured against");
        try {
            o.parse(args);
            if (o.get("dir").isEmpty()) {
                throw new IllegalArgumentException("--dir is required");
            }
            System.exit(run(Path.of(o.get("dir")), o.get("configs"), o.get("baseline"), System.out));
        } catch (IllegalArgumentException | IOException e) {
            System.err.println("compare-report: " + e.getMessage());
            System.exit(2);
        }
    }

    /** Reads the folder, prints the table and writes summary.csv / summary.md. */
    public static int run(Path dir, String configList, String baseline, PrintStream out) throws IOException {
        List<ResultRow> input = new ArrayList<>();
        Map<String, Boolean> found = new LinkedHashMap<>();
        Path raw = dir.resolve("raw");
        if (!Files.isDirectory(raw)) {
            throw new IOException("no " + raw + ": run scripts/compare.sh, which writes the per-round CSV files there");
        }
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(raw, "*.csv")) {
            List<Path> files = new ArrayList<>();
            ds.forEach(files::add);
            files.sort(null);
            for (Path f : files) {
                int skipped = 0;
                String first = null;
                for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                    if (line.isBlank() || line.startsWith("config,")) {
                        continue;
                    }
                    ResultRow r;
                    try {
                        r = ResultRow.parse(line);
                    } catch (IllegalArgumentException e) {
                        // the file is the client's standard output: a thread dump (kill -3, or jstack falling back
                        // to it) lands there too; one stray line must not cost the whole run's report
                        if (skipped++ == 0) {
                            first = line;
                        }
                        continue;
                    }
                    input.add(r);
                    found.put(r.config(), Boolean.TRUE);
                }
                if (skipped > 0) {
                    out.println("note: skipped " + skipped + " line(s) of " + f + " that are not result rows (first: \""
                            + (first.length() > 80 ? first.substring(0, 80) + "..." : first) + "\"), e.g. a thread dump"
                            + " of the client JVM, whose standard output that file is");
                }
            }
        }
        if (input.isEmpty()) {
            throw new IOException("no result rows in " + raw + "/*.csv: did every run fail? see " + dir.resolve("logs"));
        }
        List<String> configs = new ArrayList<>();
        if (!configList.isBlank()) {
            for (String c : configList.split(",")) {
                if (found.containsKey(c.trim())) {
                    configs.add(c.trim());
                }
            }
        } else {
            configs.addAll(found.keySet());
        }
        CompareReport report = of(input, configs, baseline);
        Map<String, String> stats = new TreeMap<>();
        Path logs = dir.resolve("logs");
        for (String c : configs) {
            List<String> lines = new ArrayList<>();
            if (Files.isDirectory(logs)) {
                try (DirectoryStream<Path> ds = Files.newDirectoryStream(logs, "*-client.log")) {
                    for (Path f : ds) {
                        String name = f.getFileName().toString();
                        if (name.startsWith(c + "-r") && name.substring(c.length() + 2).matches("\\d+-client\\.log")) {
                            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                                if (line.contains("[remora] stats-csv")) {
                                    lines.add(line);
                                }
                            }
                        }
                    }
                }
            }
            if (!lines.isEmpty()) {
                stats.put(c, sumStats(lines));
            }
        }
        String text = report.text(stats);
        out.print(text);
        String steady = report.steadyText();
        if (!steady.isEmpty()) {
            out.println();
            out.print(steady);
        }
        String cpu = report.cpuText();
        if (!cpu.isEmpty()) {
            out.println();
            out.print(cpu);
        }
        String async = report.asyncText();
        if (!async.isEmpty()) {
            out.println();
            out.print(async);
        }
        String floors = FloorReport.text(FloorReport.read(dir.resolve("floor")), report, input);
        if (!floors.isEmpty()) {
            out.println();
            out.print(floors);
        }
        Path header = dir.resolve("header.txt");
        String head = Files.exists(header) ? Files.readString(header, StandardCharsets.UTF_8) : "";
        StringBuilder md = new StringBuilder("# Remora compare\n\n");
        if (!head.isEmpty()) {
            md.append("```\n").append(head.strip()).append("\n```\n\n");
        }
        md.append(report.markdown(stats));
        if (!steady.isEmpty()) {
            md.append("\n```\n").append(steady).append("```\n\nSteady: per round the lowest median of 10 consecutive")
                    .append(" blocks of timed calls, median over rounds; it leaves out the seconds a JVM pair spent in")
                    .append(" the machine's slow wake-up mode. In brackets the share saved against ").append(baseline)
                    .append(".\n");
        }
        if (!cpu.isEmpty()) {
            md.append("\n```\n").append(cpu).append("```\n\nCPU: time both JVMs (all threads) spent per timed call,")
                    .append(" median over rounds; in brackets the share saved against ").append(baseline).append(".\n");
        }
        md.append("\nEach cell: median over rounds of the per-round median; in brackets the share of time saved against ")
                .append(baseline).append(" (negative: slower). star rows are calls/s of all client threads together.\n");
        if (!async.isEmpty()) {
            md.append("\n```\n").append(async).append("```\n\nAsynchronous calls (\"Implementing Asynchronous RMI in Java\"):")
                    .append(" calls/s ratios above 1 and")
                    .append(" time ratios below 1 are gains; in configurations without the +async declarations the")
                    .append(" same methods run synchronously.\n");
        }
        if (!floors.isEmpty()) {
            md.append("\n```\n").append(floors).append("```\n");
        }
        if (!stats.isEmpty()) {
            md.append("\nClient stats (summed over rounds):\n\n");
            for (Map.Entry<String, String> e : stats.entrySet()) {
                md.append("- ").append(e.getKey()).append(": `").append(e.getValue()).append("`\n");
            }
        }
        Files.writeString(dir.resolve("summary.md"), md.toString(), StandardCharsets.UTF_8);
        Files.writeString(dir.resolve("summary.csv"), report.csv(), StandardCharsets.UTF_8);
        return 0;
    }
}
