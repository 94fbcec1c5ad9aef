package dev.remora.rmi.transport;

import java.util.concurrent.atomic.LongAdder;

/**
 * A link's receiver after its spin lost the CPU (a yield of half a millisecond or more: another thread runs for whole
 * scheduler slices on this CPU, e.g. the JIT compiler): its next waits block at once instead of spinning, from
 * {@link #MIN}, doubling up to {@link #MAX} while the spins between them lose it too (a compiler recompiling for
 * seconds), back to none after a spin that did not. The socket and fabric links keep one each; the receiving
 * thread's, not thread-safe. Lost spins are counted JVM-wide for {@code remora.stats} ({@link #lostSoFar}).
 */
public final class SpinBackoff {
    static final int MIN = 4;
    static final int MAX = 1024;
    private static final LongAdder LOST = new LongAdder();

    private int left; // waits left that do not spin
    private int level; // the last run's length

    /** Whether this wait must not spin (a run after a lost spin is under way); counts it off the run. */
    public boolean skip() {
        if (left > 0) {
            left--;
            return true;
        }
        return false;
    }

    /** The spin lost the CPU: counted, and the next run of waits, longer while spins keep losing, does not spin. */
    public void lost() {
        LOST.increment();
        level = next(level);
        left = level;
    }

    /** A spin that did not lose the CPU: the next lost one starts from {@link #MIN} again. */
    public void spun() {
        level = 0;
    }

    /** The run after one of {@code level} waits: {@link #MIN} after a first lost spin, then doubling. */
    static int next(int level) {
        return level == 0 ? MIN : Math.min(level * 2, MAX);
    }

    /** Spins of this JVM's receivers that lost the CPU so far (remora.stats: spins_lost). */
    public static long lostSoFar() {
        return LOST.sum();
    }
}
