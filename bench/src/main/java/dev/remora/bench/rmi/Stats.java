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

    /** Blocks the timed calls are cut into, in call order, for {@link Summary#steadyUs}. */
    public static final int BLOCKS = 10;

    /**
     * Summary of one measured kernel. Times in microseconds. {@code steadyUs}: the lowest of the medians of
     * {@link #BLOCKS} consecutive blocks of calls (NaN when the samples are not in call order). On a VM whose
     * wake-up latency switches between modes for seconds at a time, this is the cost in the fast mode: it moves with
     * what a configuration does per call rather than with how long the host happened to sit in a slow mode.
     */
    public record Summary(int calls, double medianUs, double p90Us, double p99Us, double steadyUs) {
        public Summary(int calls, double medianUs, double p90Us, double p99Us) {
            this(calls, medianUs, p90Us, p99Us, Double.NaN);
        }
    }

    /** Summarises the first {@code count} samples, which are in call order, then sorts them in place. */
    public static Summary summarize(long[] samplesNs, int count) {
        checkCount(samplesNs, count);
        double steady = lowestBlockMedian(samplesNs, count, BLOCKS) / 1000.0;
        Summary s = summarizeUnordered(samplesNs, count);
        return new Summary(s.calls(), s.medianUs(), s.p90Us(), s.p99Us(), steady);
    }

    /** As {@link #summarize} for samples not in call order (several threads' merged): no steady figure. */
    public static Summary summarizeUnordered(long[] samplesNs, int count) {
        checkCount(samplesNs, count);
        Arrays.sort(samplesNs, 0, count);
        return new Summary(count, medianSorted(samplesNs, count) / 1000.0,
                percentileSorted(samplesNs, count, 90) / 1000.0, percentileSorted(samplesNs, count, 99) / 1000.0);
    }

    private static void checkCount(long[] samplesNs, int count) {
        if (count <= 0 || count > samplesNs.length) {
            throw new IllegalArgumentException("count " + count + " outside 1.." + samplesNs.length);
        }
    }

    /**
     * The lowest median of {@code blocks} consecutive blocks of the first {@code count} samples (fewer blocks when
     * there are fewer samples; the last block takes the remainder). Does not modify {@code samplesNs}.
     */
    public static double lowestBlockMedian(long[] samplesNs, int count, int blocks) {
        int b = Math.max(1, Math.min(blocks, count));
        int size = count / b;
        double lowest = Double.POSITIVE_INFINITY;
        for (int i = 0; i < b; i++) {
            int from = i * size;
            int to = i == b - 1 ? count : from + size;
            long[] block = Arrays.copyOfRange(samplesNs, from, to);
            Arrays.sort(block);
            lowest = Math.min(lowest, medianSorted(block, block.length));
        }
        return lowest;
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

    /** Median of the values that are not NaN, NaN when there are none; does not modify {@code values}. */
    public static double medianOfPresent(double[] values) {
        double[] v = new double[values.length];
        int n = 0;
        for (double x : values) {
            if (!Double.isNaN(x)) {
                v[n++] = x;
            }
        }
        return n == 0 ? Double.NaN : median(Arrays.copyOf(v, n));
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
