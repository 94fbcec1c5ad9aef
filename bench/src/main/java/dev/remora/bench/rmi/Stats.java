package dev.remora.bench.rmi;

import java.util.Arrays;

/**
 * Latency statistics without a histogram library: sort the recorded {@code long[]} of nanoseconds and read order
 * statistics. Median is the usual middle (mean of the two middle values for an even count); p90 and p99 are
 * nearest-rank percentiles (the smallest sample with at least that share of samples at or below it).
 */
public final class Stats {

    private Stats() {
    }

    /** Summary of one measured kernel. Times in microseconds. */
    public record Summary(int calls, double medianUs, double p90Us, double p99Us) {
    }

    /** Sorts the first {@code count} samples in place and summarises them. */
    public static Summary summarize(long[] samplesNs, int count) {
        if (count <= 0 || count > samplesNs.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + samplesNs.length);
        }
        Arrays.sort(samplesNs, 0, count);
        return new Summary(count, medianSorted(samplesNs, count) / 1000.0,
                percentileSorted(samplesNs, count, 90) / 1000.0, percentileSorted(samplesNs, count, 99) / 1000.0);
    }

    /** Nearest-rank percentile {@code p} (0 &lt; p &lt;= 100) of the first {@code count} sorted samples. */
    public static long percentileSorted(long[] sorted, int count, double p) {
        if (!(p > 0 && p <= 100)) {
            throw new IllegalArgumentException("percentile " + p + " outside (0, 100]");
        }
        int rank = (int) Math.ceil(p / 100.0 * count);
        return sorted[Math.max(rank, 1) - 1];
    }

    /** Median of the first {@code count} sorted samples. */
    public static double medianSorted(long[] sorted, int count) {
        int mid = count >>> 1;
        return (count & 1) == 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2.0;
    }

    /** Median of doubles (used for the median of the round medians); does not modify {@code values}. */
    public static double median(double[] values) {
        if (values.length == 0) {
            throw new IllegalArgumentException("median of nothing");
        }
        double[] v = values.clone();
        Arrays.sort(v);
        int mid = v.length >>> 1;
        return (v.length & 1) == 1 ? v[mid] : (v[mid - 1] + v[mid]) / 2.0;
    }
}
