package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;

/** When waits stop spinning: the application's runnable threads fill every CPU. */
class CpuWatchTest {
    @Test
    void theRuleCountsOthersAgainstTheCpus() {
        assertFalse(CpuWatch.busy(1, 0, 2), "only the asking thread");
        assertFalse(CpuWatch.busy(2, 0, 2), "the asker and one other (a peer spinning for us) on two CPUs");
        assertTrue(CpuWatch.busy(3, 0, 2), "two computing threads besides the asker fill two CPUs");
        assertFalse(CpuWatch.busy(3, 1, 2), "one of them is this JVM's own spinning waiter");
        assertTrue(CpuWatch.busy(9, 2, 4));
        assertFalse(CpuWatch.busy(9, 2, 0), "CPUs unknown: never busy");
    }

    private static int parse(String loadavg) {
        byte[] b = loadavg.getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        return CpuWatch.parseRunnable(b, b.length);
    }

    @Test
    void loadavgParses() {
        assertEquals(3, parse("0.52 0.58 0.59 3/467 12345\n"));
        assertEquals(-1, parse("garbage"));
        assertEquals(12, parse("12.00 8.50 4.25 12/1890 4242"));
        assertEquals(-1, parse("0.52 0.58 0.59 /467 12345"));
        assertEquals(-1, parse("0.52 0.58 0.59 3"));
        assertEquals(-1, parse(""));
        byte[] cut = "0.52 0.58 0.59 7/467 1".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        assertEquals(7, CpuWatch.parseRunnable(cut, 17)); // the length given, not the array's
        assertEquals(-1, CpuWatch.parseRunnable(cut, 16));
        if (Files.isReadable(Path.of("/proc/loadavg"))) {
            assertTrue(CpuWatch.runnable() >= 1, "this thread runs");
        }
    }

    @Test
    void threadsThatComputeOnEveryCpuMakeTheMachineBusy() throws Exception {
        assumeTrue(Files.isReadable(Path.of("/proc/loadavg")), "no /proc/loadavg");
        int n = 2 * Math.max(2, Runtime.getRuntime().availableProcessors()) + 2;
        AtomicBoolean stop = new AtomicBoolean();
        List<Thread> hogs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Thread t = new Thread(() -> {
                long x = 0;
                while (!stop.get()) {
                    x += System.nanoTime() % 7;
                }
                if (x == 42) {
                    System.out.print("");
                }
            });
            t.setDaemon(true);
            t.start();
            hogs.add(t);
        }
        try {
            boolean seen = false;
            for (int i = 0; i < 300 && !seen; i++) { // up to 3 s: the sample is taken at most every 10 ms
                seen = CpuWatch.othersBusy();
                Thread.sleep(10);
            }
            assertTrue(seen, "with " + n + " threads computing, waits would still spin");
        } finally {
            stop.set(true);
            for (Thread t : hogs) {
                t.join();
            }
        }
    }
}
