package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class StatsTest {

    @Test
    void oddCountMedianIsTheMiddleAndPercentilesAreNearestRank() {
        long[] ns = new long[101];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = (100 - i) * 1000L; // reversed: summarize must sort
        }
        Stats.Summary s = Stats.summarize(ns, ns.length);
        assertEquals(101, s.calls());
        assertEquals(50.0, s.medianUs(), 1e-9);
        assertEquals(90.0, s.p90Us(), 1e-9); // ceil(0.9 * 101) = 91st smallest = 90 us
        assertEquals(99.0, s.p99Us(), 1e-9); // ceil(0.99 * 101) = 100th smallest = 99 us
    }

    @Test
    void evenCountMedianAveragesTheTwoMiddleValues() {
        long[] ns = {4000, 1000, 3000, 2000};
        Stats.Summary s = Stats.summarize(ns, 4);
        assertEquals(2.5, s.medianUs(), 1e-9);
        assertEquals(4.0, s.p90Us(), 1e-9);
        assertEquals(4.0, s.p99Us(), 1e-9);
    }

    @Test
    void onlyTheFirstCountSamplesCount() {
        long[] ns = {5000, 1000, 3000, 999_999_000, 999_999_000};
        Stats.Summary s = Stats.summarize(ns, 3);
        assertEquals(3, s.calls());
        assertEquals(3.0, s.medianUs(), 1e-9);
        assertEquals(5.0, s.p99Us(), 1e-9);
    }

    @Test
    void singleSample() {
        Stats.Summary s = Stats.summarize(new long[] {7000}, 1);
        assertEquals(7.0, s.medianUs(), 1e-9);
        assertEquals(7.0, s.p90Us(), 1e-9);
    }

    @Test
    void rejectsEmptyAndBadPercentiles() {
        assertThrows(IllegalArgumentException.class, () -> Stats.summarize(new long[3], 0));
        assertThrows(IllegalArgumentException.class, () -> Stats.summarize(new long[3], 4));
        assertThrows(IllegalArgumentException.class, () -> Stats.percentileSorted(new long[3], 3, 0));
        assertThrows(IllegalArgumentException.class, () -> Stats.median(new double[0]));
    }

    @Test
    void medianOfDoublesDoesNotReorderItsInput() {
        double[] v = {3, 1, 2, 10};
        assertEquals(2.5, Stats.median(v), 1e-9);
        assertEquals(3, v[0]);
        assertEquals(2.0, Stats.median(new double[] {9, 2, 1}), 1e-9);
    }

    @Test
    void steadyIsTheLowestMedianOfTenBlocksInCallOrder() {
        // 100 calls: a slow mode (40-49 us) except calls 30..39 (20-29 us, scrambled within the block)
        long[] ns = new long[100];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = (i >= 30 && i < 40 ? 20_000 + (i * 7 % 10) * 1000 : 40_000 + (i % 10) * 1000);
        }
        Stats.Summary s = Stats.summarize(ns, ns.length);
        assertEquals(24.5, s.steadyUs(), 1e-9); // median of 20..29 us
        assertEquals(44.0, s.medianUs(), 1e-9); // the plain median sits in the slow mode
        assertEquals(24.5, Stats.lowestBlockMedian(new long[] {24_000, 25_000}, 2, 1) / 1000, 1e-9);
        assertEquals(3.0, Stats.lowestBlockMedian(new long[] {9, 3, 5}, 3, 10), 1e-9); // fewer calls than blocks
        // the last block takes the remainder: 23 calls in 10 blocks of 2, the last of 5
        long[] rest = new long[23];
        java.util.Arrays.fill(rest, 50);
        rest[20] = 1;
        rest[21] = 1;
        rest[22] = 1;
        assertEquals(1.0, Stats.lowestBlockMedian(rest, 23, 10), 1e-9);
        assertTrue(Double.isNaN(Stats.summarizeUnordered(new long[] {1, 2}, 2).steadyUs()));
    }

    @Test
    void medianOfPresentLeavesOutNaN() {
        double[] v = {3, Double.NaN, 1, 2};
        assertEquals(2.0, Stats.medianOfPresent(v), 1e-9);
        assertTrue(Double.isNaN(v[1]), "the input is kept");
        assertTrue(Double.isNaN(Stats.medianOfPresent(new double[] {Double.NaN})));
        assertTrue(Double.isNaN(Stats.medianOfPresent(new double[0])));
    }
}
