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
