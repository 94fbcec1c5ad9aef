package dev.remora.bench.rmi;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * The floors of the fabric transport that {@code scripts/compare.sh} measures in the same run as the JVM pairs, and
 * {@code echo_obj byte[100000]} read against them.
 *
 * <ul>
 *   <li>C ({@code impl c}, {@code bench/src/main/c}): libfabric alone, the same two buffers every round trip.</li>
 *   <li>C, fresh buffers ({@code impl c-fresh}, the same program with {@code -F}, 100000 B only): libfabric alone,
 *       each message received into memory not touched lately and echoed from there, as a Java echo's new array is;
 *       nothing zeroed or copied, so it bounds any implementation of Java's semantics from below.</li>
 *   <li>Java, fresh arrays ({@code impl java-fresh}, {@code FabricPingPong -f} on the compare's JVM options): the
 *       transport plus what Java semantics cost on each side, a new {@code byte[]} for every message received.
 *       An RMI echo of an array can go no faster.</li>
 * </ul>
 * The share of a floor's bandwidth is the floor's round-trip time over the call's (both move the bytes once each
 * way), read two ways: medians over rounds against each other, and per round (the floor and the call measured minutes
 * apart in the same round, so in the same stretch of a VM whose memory speed changes for seconds at a time), the
 * median of those shares. Reads {@code DIR/floor/*.csv}: lines
 * {@code impl,provider,mode,size,iters,client_cpu,server_cpu,median_us,...} as the C floor and FabricPingPong print
 * them, one file per round and floor ({@code floor-rN.csv}, {@code floor-rN-fresh.csv}, {@code floor-rN-java.csv}).
 */
public final class FloorReport {
    static final int BIG = 100_000;
    static final int SMALL = 64;
    /** A floor: its impl column, its row name, its short label in the echo lines. Report order. */
    private record Floor(String impl, String name, String label) {}

    private static final List<Floor> FLOORS = List.of(
            new Floor("c", "C, fixed buffers", "C"),
            new Floor("c-fresh", "C, fresh buffers", "C fresh"),
            new Floor("java-fresh", "Java, fresh arrays", "Java"));

    /** One measured line: which floor, message size, median round trip of that run, its round (0: unknown). */
    public record Measure(String impl, int size, double medianUs, int round) {
        public Measure(String impl, int size, double medianUs) {
            this(impl, size, medianUs, 0);
        }
    }

    private static final java.util.regex.Pattern ROUND = java.util.regex.Pattern.compile("floor-r(\\d+)\\b.*");

    private FloorReport() {}

    /** Every floor line under dir (absent dir: none). Malformed lines are skipped: a failed floor run leaves a gap. */
    public static List<Measure> read(Path dir) throws IOException {
        List<Measure> out = new ArrayList<>();
        if (!Files.isDirectory(dir)) {
            return out;
        }
        List<Path> files = new ArrayList<>();
        try (DirectoryStream<Path> ds = Files.newDirectoryStream(dir, "*.csv")) {
            ds.forEach(files::add);
        }
        files.sort(null);
        for (Path f : files) {
            java.util.regex.Matcher rm = ROUND.matcher(f.getFileName().toString());
            int round = rm.matches() ? Integer.parseInt(rm.group(1)) : 0;
            for (String line : Files.readAllLines(f, StandardCharsets.UTF_8)) {
                Measure m = parse(line, round);
                if (m != null) {
                    out.add(m);
                }
            }
        }
        return out;
    }

    static Measure parse(String line, int round) {
        String[] f = line.split(",");
        if (f.length < 8 || FLOORS.stream().noneMatch(x -> x.impl().equals(f[0]))) {
            return null;
        }
        try {
            double median = Double.parseDouble(f[7]);
            return median > 0 ? new Measure(f[0], Integer.parseInt(f[3]), median, round) : null;
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** Median over runs of impl's round trip at size, NaN when not measured. */
    static double floorUs(List<Measure> measures, String impl, int size) {
        return Stats.medianOfPresent(measures.stream().filter(m -> m.impl().equals(impl) && m.size() == size)
                .mapToDouble(Measure::medianUs).toArray());
    }

    /**
     * Median over rounds of floor / call time, each pair from one round; NaN when no round has both. Rows are the
     * compare's per-round result rows.
     */
    static double sameRoundShare(List<Measure> measures, List<ResultRow> rows, String impl, String config) {
        List<Double> shares = new ArrayList<>();
        for (ResultRow r : rows) {
            if (!r.config().equals(config) || !r.kernel().equals(Kernel.ECHO.id()) || !r.object().equals("byte[]")
                    || r.n() != BIG || !(r.medianUs() > 0)) {
                continue;
            }
            double[] floor = measures.stream().filter(m -> m.impl().equals(impl) && m.size() == BIG
                    && m.round() == r.round() && m.round() > 0).mapToDouble(Measure::medianUs).toArray();
            if (floor.length > 0) {
                shares.add(Stats.median(floor) / r.medianUs());
            }
        }
        return Stats.medianOfPresent(shares.stream().mapToDouble(Double::doubleValue).toArray());
    }

    /**
     * The floors and, per configuration that ran it, echo_obj byte[100000] against them; "" without floors. Rows are
     * the compare's per-round result rows, for the same-round shares (none without them).
     */
    public static String text(List<Measure> measures, CompareReport report, List<ResultRow> rows) {
        if (measures.isEmpty()) {
            return "";
        }
        StringBuilder sb = new StringBuilder();
        sb.append("Fabric floors over shm (placement as the JVMs'; median over rounds)\n");
        sb.append(String.format(Locale.ROOT, "  %-22s %14s %16s %12s%n", "", "64 B round trip", "100000 B round trip",
                "each way"));
        Map<Floor, Double> big = new LinkedHashMap<>();
        for (Floor f : FLOORS) {
            double small = floorUs(measures, f.impl(), SMALL);
            double b = floorUs(measures, f.impl(), BIG);
            if (Double.isNaN(small) && Double.isNaN(b)) {
                continue;
            }
            big.put(f, b);
            sb.append(String.format(Locale.ROOT, "  %-22s %12s us %16s us %12s%n", f.name(), fmt(small, 2),
                    fmt(b, 1), Double.isNaN(b) ? "-" : String.format(Locale.ROOT, "%.0f MB/s", BIG / (b / 2))));
        }
        StringBuilder echo = new StringBuilder();
        boolean paired = false;
        for (String c : report.configs()) {
            CompareReport.Cell cell = report.cell(Kernel.ECHO.id(), "byte[]", BIG, c);
            if (cell == null || Double.isNaN(cell.medianUs())) {
                continue;
            }
            echo.append(String.format(Locale.ROOT, "  %-14s %8.1f us", c, cell.medianUs()));
            StringBuilder same = new StringBuilder();
            for (Map.Entry<Floor, Double> e : big.entrySet()) {
                if (!Double.isNaN(e.getValue())) {
                    String label = e.getKey().label();
                    echo.append(String.format(Locale.ROOT, "   %s %.0f%%", label, 100 * e.getValue() / cell.medianUs()));
                    double share = sameRoundShare(measures, rows, e.getKey().impl(), c);
                    if (!Double.isNaN(share)) {
                        same.append(String.format(Locale.ROOT, "   %s %.0f%%", label, 100 * share));
                    }
                }
            }
            if (same.length() > 0) {
                echo.append("   | same round:").append(same);
                paired = true;
            }
            echo.append('\n');
        }
        if (echo.length() > 0) {
            sb.append("echo_obj byte[100000], 100000 B each way:")
                    .append(" share of each floor's bandwidth (floor / call time)");
            sb.append(paired ? "\n  (same round: median over rounds of each round's floor / call time)\n" : "\n");
            sb.append(echo);
        }
        return sb.toString();
    }

    private static String fmt(double v, int decimals) {
        return Double.isNaN(v) ? "-" : String.format(Locale.ROOT, "%." + decimals + "f", v);
    }
}
