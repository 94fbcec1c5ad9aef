package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The waits that do not spin after a receiver's spin lost the CPU. */
class SpinBackoffTest {
    @Test
    void theBackoffDoublesWhileSpinsKeepLosingTheCpu() {
        int level = 0;
        int[] seen = new int[10];
        for (int i = 0; i < seen.length; i++) {
            seen[i] = level = SpinBackoff.next(level);
        }
        assertEquals(SpinBackoff.MIN, seen[0]);
        assertEquals(2 * SpinBackoff.MIN, seen[1]);
        assertEquals(SpinBackoff.MAX, seen[9]);
    }

    @Test
    void aLostSpinIsCountedAndStartsTheBackoff() {
        long before = SpinBackoff.lostSoFar();
        SpinBackoff b = new SpinBackoff();
        assertFalse(b.skip(), "no backoff before a lost spin");
        b.lost();
        assertEquals(SpinBackoff.MIN, skipped(b));
        b.lost();
        assertEquals(2 * SpinBackoff.MIN, skipped(b));
        b.spun();
        b.lost();
        assertEquals(SpinBackoff.MIN, skipped(b), "a spin that did not lose the CPU starts the runs over");
        assertTrue(SpinBackoff.lostSoFar() >= before + 3, "three lost spins counted"); // other tests' links may add
    }

    /** The waits of the run under way that do not spin. */
    private static int skipped(SpinBackoff b) {
        int n = 0;
        while (b.skip()) {
            n++;
        }
        return n;
    }
}
