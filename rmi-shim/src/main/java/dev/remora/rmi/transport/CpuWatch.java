package dev.remora.rmi.transport;

import java.io.FileInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Whether the machine's CPUs are wanted by others: then a receiver waiting for a frame blocks at once instead of
 * spinning, because spinning pays only while a CPU would otherwise idle (Manta's upcalls spin on a dedicated
 * network; an application whose threads compute on every CPU must not lose them to Remora's waits).
 *
 * <p>What the machine shows: the runnable threads of the whole system ({@code /proc/loadavg}'s fourth field, read at
 * most every {@value #PERIOD_MILLIS} ms by whichever waiter comes first), less the reading thread itself and this
 * JVM's other spinning waiters and those of this user's other Remora JVMs ({@link HostSpinners}), against the
 * machine's online CPUs ({@code /proc/stat}; not this process's affinity,
 * so a client and server pinned to one CPU still spin for each other). When those others fill every CPU, waits
 * block. Without {@code /proc} (not Linux) the machine never counts as busy.
 */
public final class CpuWatch {
    static final long PERIOD_MILLIS = 10;
    private static final long PERIOD_NANOS = TimeUnit.MILLISECONDS.toNanos(PERIOD_MILLIS);
    private static final String LOADAVG = "/proc/loadavg";
    private static final int CPUS = onlineCpus();
    private static final AtomicInteger SPINNERS = new AtomicInteger();
    private static final AtomicBoolean SAMPLING = new AtomicBoolean();
    private static volatile long nextSample = System.nanoTime();
    private static volatile boolean busy;
    private static volatile boolean readable = CPUS > 0;

    private CpuWatch() {
    }

    /** True when threads other than Remora's waiters want every CPU: a wait should block without spinning. */
    public static boolean othersBusy() {
        if (!readable) {
            return false;
        }
        long now = System.nanoTime();
        if (now - nextSample >= 0 && SAMPLING.compareAndSet(false, true)) {
            try {
                int runnable = runnable();
                if (runnable < 0) {
                    readable = false;
                    busy = false;
                } else {
                    busy = busy(runnable, SPINNERS.get() + HostSpinners.jvm().others(), CPUS);
                }
                nextSample = now + PERIOD_NANOS;
            } finally {
                SAMPLING.set(false);
            }
        }
        return busy;
    }

    /**
     * A waiter of this JVM starts spinning (it is runnable, and not the application's). Returns where it was
     * counted for the other JVMs of this user, to give back to {@link #spun}.
     */
    public static HostSpinners spinning() {
        SPINNERS.incrementAndGet();
        HostSpinners h = HostSpinners.jvm();
        h.add(1);
        return h;
    }

    /** ... and stops: {@code counted} is what {@link #spinning} returned. */
    public static void spun(HostSpinners counted) {
        SPINNERS.decrementAndGet();
        counted.add(-1);
    }

    /**
     * The rule: {@code runnable} threads system-wide, of which one is the thread asking and {@code spinners} are this
     * JVM's spinning waiters; the rest fill every one of {@code cpus}.
     */
    static boolean busy(int runnable, int spinners, int cpus) {
        int others = runnable - 1 - Math.max(0, spinners);
        return cpus > 0 && others >= cpus;
    }

    /**
     * The fourth field of /proc/loadavg, "running/total": running; -1 when it cannot be read. Read into a small array
     * and parsed by hand: asked every {@value #PERIOD_MILLIS} ms while waiters wait, so no channel, decoder or regex
     * (with {@code String.split("\\s+")} a JVM's first second spent several ms compiling the same pattern).
     */
    static int runnable() {
        byte[] b = new byte[128];
        int n = 0;
        try (FileInputStream in = new FileInputStream(LOADAVG)) {
            for (int r; n < b.length && (r = in.read(b, n, b.length - n)) > 0; ) {
                n += r;
            }
        } catch (IOException | RuntimeException e) {
            return -1;
        }
        return parseRunnable(b, n);
    }

    /** "0.52 0.58 0.59 3/467 12345": the digits before the fourth field's slash, or -1. */
    static int parseRunnable(byte[] b, int length) {
        int i = 0;
        for (int field = 0; field < 3; field++) {
            while (i < length && b[i] != ' ') {
                i++;
            }
            while (i < length && b[i] == ' ') {
                i++;
            }
        }
        int value = 0;
        int digits = 0;
        for (; i < length && b[i] >= '0' && b[i] <= '9' && digits < 9; i++, digits++) {
            value = value * 10 + (b[i] - '0');
        }
        return digits > 0 && i < length && b[i] == '/' ? value : -1;
    }

    /** The cpuN lines of /proc/stat; 0 when it cannot be read. */
    private static int onlineCpus() {
        try {
            int n = 0;
            for (String line : Files.readAllLines(Path.of("/proc/stat"), StandardCharsets.US_ASCII)) {
                if (line.startsWith("cpu") && line.length() > 3 && Character.isDigit(line.charAt(3))) {
                    n++;
                }
            }
            return n;
        } catch (IOException | RuntimeException e) {
            return 0;
        }
    }
}
