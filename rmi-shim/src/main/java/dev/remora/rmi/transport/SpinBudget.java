package dev.remora.rmi.transport;

/**
 * How long a socket link's next wait for a frame may spin: {@code spinNanos}, or, when it adapts
 * ({@code spinMaxNanos > spinNanos}), twice what the link's waits have lately lasted, up to {@code spinMaxNanos}; the
 * rule of the fabric endpoints' waits ({@code remora.fabric.spin.max}). Why: a wait that outlasts its spin blocks,
 * and a blocked reader that the peer's write wakes on another vCPU takes 30-60 µs to run again on a VM whose
 * cross-CPU wake-ups are slow. A server thread whose next request comes one application step (100-200 µs) after the
 * last blocked for every request with the fixed 20 µs. A wait longer than {@code spinMaxNanos} (an idle link, a peer
 * computing) counts as 0, so an idle link spins only {@code spinNanos}. The reading thread's, not thread-safe.
 */
final class SpinBudget {
    private final long spinNanos;
    private final long spinMaxNanos;
    private long typical; // moving average (1/8) of recent waits; one past spinMaxNanos counts as 0

    SpinBudget(long spinNanos, long spinMaxNanos) {
        this.spinNanos = Math.max(0, spinNanos);
        this.spinMaxNanos = Math.max(0, spinMaxNanos);
    }

    /** Whether waits change the budget: {@code spinMaxNanos} above {@code spinNanos} (else no need to time them). */
    boolean adapts() {
        return spinMaxNanos > spinNanos;
    }

    /** The next wait's budget. */
    long next() {
        if (!adapts()) {
            return spinNanos;
        }
        long b = 2 * typical;
        return b < spinNanos ? spinNanos : Math.min(b, spinMaxNanos);
    }

    /** A wait ended after {@code nanos}, spun or blocked: folded into the average. */
    void waited(long nanos) {
        long d = nanos < 0 || nanos > spinMaxNanos ? 0 : nanos;
        typical += (d - typical) / 8;
    }
}
