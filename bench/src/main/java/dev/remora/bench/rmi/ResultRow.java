package dev.remora.bench.rmi;

import java.util.Locale;

/**
 * One line of the collection's machine-readable output:
 * {@code config,round,kernel,object,n,calls,median_us,p90_us,p99_us,calls_per_s,cpu_us}. {@code cpu_us} is the CPU
 * time both JVMs spent per timed call (client + server, all threads); empty (NaN) where it was not measured.
 */
public record ResultRow(String config, int round, String kernel, String object, int n, int calls, double medianUs,
        double p90Us, double p99Us, double callsPerS, double cpuUs) {

    public static final String HEADER =
            "config,round,kernel,object,n,calls,median_us,p90_us,p99_us,calls_per_s,cpu_us";

    public String toCsv() {
        return String.format(Locale.ROOT, "%s,%d,%s,%s,%d,%d,%.3f,%.3f,%.3f,%.1f,%s", config, round, kernel, object,
                n, calls, medianUs, p90Us, p99Us, callsPerS,
                Double.isNaN(cpuUs) ? "" : String.format(Locale.ROOT, "%.3f", cpuUs));
    }

    /**
     * Parses a line written by {@link #toCsv()} (or by an older client, without {@code cpu_us}); the message names the
     * line when it is malformed.
     */
    public static ResultRow parse(String line) {
        String[] f = line.trim().split(",", -1);
        if (f.length != 10 && f.length != 11) {
            throw new IllegalArgumentException("expected 11 CSV fields (" + HEADER + "), got " + f.length + ": " + line);
        }
        try {
            return new ResultRow(f[0], Integer.parseInt(f[1]), f[2], f[3], Integer.parseInt(f[4]),
                    Integer.parseInt(f[5]), Double.parseDouble(f[6]), Double.parseDouble(f[7]),
                    Double.parseDouble(f[8]), Double.parseDouble(f[9]),
                    f.length == 11 && !f[10].isEmpty() ? Double.parseDouble(f[10]) : Double.NaN);
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
        if (object.equals("raw")) {
            return n + " B";
        }
        return object;
    }
}
