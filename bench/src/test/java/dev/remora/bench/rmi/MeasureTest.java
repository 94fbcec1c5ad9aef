package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The per-case warm-up: a call count and a minimum time, both under the budget; then exactly the timed calls. */
class MeasureTest {

    @Test
    void warmUpLastsAtLeastTheMinimumTimeEvenWhenTheCallCountIsReached() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        long t0 = System.nanoTime();
        BenchClient.Measured m = BenchClient.measure(() -> {
            calls.incrementAndGet();
            Thread.sleep(1);
        }, 2, 40_000_000L, 5, 10_000_000_000L, new long[5]);
        long warmCalls = calls.get() - 5;
        assertEquals(5, m.summary().calls());
        assertTrue(warmCalls >= 2, "warm-up made " + warmCalls + " calls");
        assertTrue(System.nanoTime() - t0 >= 40_000_000L, "warm-up ended before its minimum time");
        assertTrue(warmCalls <= 45, "warm-up of ~40 ms with 1 ms calls made " + warmCalls + " calls");
    }

    @Test
    void warmUpStopsAtTheBudgetAndTimingStillRuns() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        BenchClient.Measured m = BenchClient.measure(() -> {
            calls.incrementAndGet();
            Thread.sleep(1);
        }, 1_000_000, 60_000_000_000L, 3, 20_000_000L, new long[3]);
        assertEquals(3, m.summary().calls());
        assertTrue(calls.get() - 3 <= 25, "warm-up ignored its 20 ms budget: " + (calls.get() - 3) + " calls");
    }

    @Test
    void withoutAMinimumTimeTheWarmUpIsTheCallCount() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        BenchClient.measure(calls::incrementAndGet, 7, 0, 4, 10_000_000_000L, new long[4]);
        assertEquals(11, calls.get());
    }
}
