package dev.remora.rmi.transport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class SpinBudgetTest {
    private static final long SPIN = 20_000;
    private static final long MAX = 200_000;

    @Test
    void aFreshLinkSpinsTheFixedBudget() {
        assertEquals(SPIN, new SpinBudget(SPIN, MAX).next());
    }

    @Test
    void waitsOfAStepSpinTwiceTheirLengthUpToTheMaximum() {
        SpinBudget b = new SpinBudget(SPIN, MAX);
        waits(b, 60_000, 64);
        long budget = b.next();
        assertTrue(budget > 110_000 && budget <= 120_000, "about twice 60 us: " + budget);
        waits(b, 150_000, 64);
        assertEquals(MAX, b.next(), "twice 150 us, capped");
    }

    @Test
    void waitsLongerThanTheMaximumCountAsNoneSoAnIdleLinkSpinsTheFixedBudget() {
        SpinBudget b = new SpinBudget(SPIN, MAX);
        waits(b, 90_000, 64);
        assertTrue(b.next() > 150_000, "adapted first: " + b.next());
        waits(b, 5_000_000_000L, 64); // an idle link: seconds between frames
        assertEquals(SPIN, b.next());
    }

    @Test
    void framesThatAreAlreadyThereBringTheBudgetBackDown() {
        SpinBudget b = new SpinBudget(SPIN, MAX);
        waits(b, 100_000, 64);
        waits(b, 1_000, 64);
        assertEquals(SPIN, b.next());
    }

    @Test
    void aMaximumAtOrBelowTheSpinDoesNotAdapt() {
        assertTrue(new SpinBudget(SPIN, MAX).adapts());
        assertTrue(!new SpinBudget(SPIN, SPIN).adapts() && !new SpinBudget(SPIN, 0).adapts());
        SpinBudget b = new SpinBudget(SPIN, SPIN);
        waits(b, 100_000, 64);
        assertEquals(SPIN, b.next());
        SpinBudget none = new SpinBudget(0, 0);
        waits(none, 100_000, 64);
        assertEquals(0, none.next(), "remora.socket.spin=0 with no maximum: blocks at once");
    }

    @Test
    void aNegativeClockDifferenceCountsAsNone() {
        SpinBudget b = new SpinBudget(SPIN, MAX);
        waits(b, -1, 64);
        assertEquals(SPIN, b.next());
    }

    private static void waits(SpinBudget b, long nanos, int n) {
        for (int i = 0; i < n; i++) {
            b.waited(nanos);
        }
    }
}
