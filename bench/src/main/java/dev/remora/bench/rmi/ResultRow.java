package dev.remora.bench.rmi;

import java.util.Locale;

/**
 * One line of the collection's machine-readable output:
 * {@code config,round,kernel,object,n,calls,median_us,p90_us,p99_us,calls_per_s,cpu_us,steady_us}. {@code cpu_us} is
 * the CPU time both JVMs spent per timed call (client + server, all threads); {@code steady_us} the lowest median of
 * 10 consecutive blocks of the timed calls ({@link Stats.Summary#steadyUs}); each is empty (NaN) where not measured.
 */
public record ResultRow(String config, int round, String kernel, String object, int n, int calls, double medianUs,
        double p90Us, double p99Us, double callsPerS, double cpuUs, double steadyUs) {

    public static final String HEADER =
            "config,round,kernel,object,n,calls,median_us,p90_us,p99_us,calls_per_s,cpu_us,steady_us";

    /** A row without a steady figure. */
    public ResultRow(String config, int round, String kernel, String object, int n, int calls, double medianUs,
            double p90Us, double p99Us, double callsPerS, double cpuUs) {
        this(config, round, kernel, object, n, calls, medianUs, p90Us, p99Us, callsPerS, cpuUs, Double.NaN);
    }

    public String toCsv() {
        return String.format(Locale.ROOT, "%s,%d,%s,%s,%d,%d,%.3f,%.3f,%.3f,%.1f,%s,%s", config, round, kernel,
                object, n, calls, medianUs, p90Us, p99Us, callsPerS, optional(cpuUs), optional(steadyUs));
    }

    /** An optional figure as written in the CSV files: three decimals, or empty when NaN (not measured). */
    static String optional(double v) {
        return Double.isNaN(v) ? "" : String.format(Locale.ROOT, "%.3f", v);
    }

    private static double optional(String[] f, int i) {
        return f.length > i && !f[i].isEmpty() ? Double.parseDouble(f[i]) : Double.NaN;
    }

    /**
     * Parses a line written by {@link #toCsv()} (or by an older client, without {@code steady_us} or {@code cpu_us});
     * the message names the line when it is malformed.
     */
    public static ResultRow parse(String line) {
        String[] f = line.trim().split(",", -1);
        if (f.length < 10 || f.length > 12) {
            throw new IllegalArgumentException("expected 12 CSV fields (" + HEADER + "), got " + f.length + ": " + line);
        }
        try {
            return new ResultRow(f[0], Integer.parseInt(f[1]), f[2], f[3], Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                    Double.parseDouble(f[8]), Double.parseDouble(f[9]), optional(f, 10), optional(f, 11));
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("malformed number in result line: " + line, e);
        }
    }

    /** The row title object part, e.g. {@code float[5000]}; empty for kernels without an object. */
    public String objectLabel() {
        if (object.equals("-")) {
            return "";
        }
        if (object.endsWith("[]")) {
            return object.substring(0, object.length() - 1) + n + "]";
        }
        if (object.equals("mix")) {
            return n + " calls";
        }
        if (object.equals("raw")) {
            return n + " B";
        }
        return object;
    }
}
