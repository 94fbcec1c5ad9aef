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

    @Test
    void cpuProbeSeesWorkFinerThanClockTicksAndIsReadAroundTheTimedLoopOnly() throws Exception {
        java.lang.management.ThreadMXBean threads = java.lang.management.ManagementFactory.getThreadMXBean();
        long p0 = PingServiceImpl.processCpuNanos();
        long t0 = threads.getCurrentThreadCpuTime();
        long x = 0;
        while (threads.getCurrentThreadCpuTime() - t0 < 3_000_000L) { // 3 ms of this thread's CPU
            x += System.nanoTime() & 1;
        }
        long delta = PingServiceImpl.processCpuNanos() - p0;
        assertTrue(x >= 0);
        assertTrue(delta >= 2_900_000L, "process CPU grew by only " + delta + " ns over 3 ms of busy work");
        if (java.nio.file.Files.isDirectory(java.nio.file.Path.of("/proc/self/task"))) {
            assertTrue(delta % 10_000_000L != 0, "ns resolution on Linux, not 10 ms ticks: " + delta);
        }
        long[] reads = new long[1];
        BenchClient.Measured m = BenchClient.measure(() -> { }, 3, 0, 5, 10_000_000_000L, new long[5], () -> {
            reads[0]++;
            return 1000L * reads[0];
        });
        assertEquals(2, reads[0], "once before and once after the timed calls");
        assertEquals(1000L, m.cpuNs());
        assertEquals(1000.0 / 1e3 / 5, m.cpuUsPerCall(), 1e-9);
    }
}
