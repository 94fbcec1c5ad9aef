package dev.remora.agent;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Remora's only output: lines on stderr prefixed {@code [remora]}. No logging framework, so Remora never configures
 * or collides with the application's. {@link #once} reports a given reason a single time per JVM.
 */
public final class Log {
    public static final int QUIET = 0;
    public static final int INFO = 1;
    public static final int DEBUG = 2;

    private static volatile int level = INFO;
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    private static final long T0 = System.nanoTime();

    private Log() {
    }

    public static void setLevel(String name) {
        level = "quiet".equals(name) ? QUIET : "debug".equals(name) ? DEBUG : INFO;
    }

    public static boolean debugEnabled() {
        return level >= DEBUG;
    }

    public static void error(String message) {
        System.err.println("[remora] ERROR " + message);
    }

    public static void info(String message) {
        if (level >= INFO) {
            System.err.println("[remora] " + message);
        }
    }

    public static void debug(String message) {
        if (level >= DEBUG) {
            // ms since premain (when this class was first used): where start-up time goes
            System.err.println("[remora] debug " + (System.nanoTime() - T0) / 1_000_000 + " ms: " + message);
        }
    }

    /** Says {@code message} at info level the first time {@code key} is seen; later calls are silent. */
    public static void once(String key, String message) {
        if (SAID.add(key)) {
            info(message);
        }
    }

    private static final ConcurrentHashMap<String, long[]> LIMITED = new ConcurrentHashMap<>();
    private static final long LIMIT_NANOS = 10_000_000_000L;

    /**
     * Says {@code message} at info level at most once every 10 seconds per {@code key}, with how many were left
     * unsaid since the last line (for what may happen on every call: a one-way call's exception).
     */
    public static void limited(String key, String message) {
        long[] state = LIMITED.computeIfAbsent(key, k -> new long[] {System.nanoTime() - LIMIT_NANOS, 0});
        long skipped;
        synchronized (state) {
            long now = System.nanoTime();
            if (now - state[0] < LIMIT_NANOS) {
                state[1]++;
                return;
            }
            state[0] = now;
            skipped = state[1];
            state[1] = 0;
        }
        info(skipped == 0 ? message : message + " [" + skipped + " more like it in the last 10 s not shown]");
    }

    /** Like {@link #once} with a throwable, whose stack trace is printed only at debug level. */
    public static void once(String key, String message, Throwable t) {
        if (SAID.add(key)) {
            info(message + ": " + t);
            if (level >= DEBUG) {
                t.printStackTrace();
            }
        }
    }
}
