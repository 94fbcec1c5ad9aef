package dev.remora.bench.rmi;

import java.util.ArrayList;
import java.util.List;

/**
 * The kernels of "KaRMI" section 6.1 plus two of Remora's own: the raw Java TCP ping-pong (the floor that
 * Remora's null ping is judged against) and {@code throw(obj)} (the exception path); and the asynchronous ones of
 * "Implementing Asynchronous RMI in Java", whose methods the compare script's {@code +async} configurations declare
 * one-way or future on the server: {@code oneway} (calls/s of a one-way void call, the loop ended by a synchronous
 * call so that all ran), {@code oneway_star} (the same from {@code --star-threads} threads), {@code future_late} (a
 * future used after its call completed: the time of the call plus that of the first use, not the wait between),
 * {@code future_now} (used at once), {@code future_sync} (the same method, synchronous; the three paced alike by a
 * 1 ms pause per call, not timed), {@code future_wait1ms} and {@code sync_wait1ms} (1000 calls of a method that
 * sleeps 1 ms, with futures used after the loop or synchronously: one sample per loop), and {@code api_wait1ms} (the
 * undeclared method of {@code sync_wait1ms}, each call made with {@code Remora.async}, the caller's own choice: in
 * every configuration, synchronous without the agent). {@link #id()} is the CSV
 * value and what {@code --kernels} takes; {@link #label()} is the row title in reports.
 */
public enum Kernel {
    PING("ping", "void ping()", false),
    PING_2I("ping2i", "void ping(int,int)", false),
    PING_2I2F("ping2i2f", "void ping(int,int,float,float)", false),
    PING_OBJ("ping_obj", "void ping(obj)", true),
    ECHO("echo_obj", "obj ping(obj)", true),
    PINGPONG("pingpong", "obj pingpong(obj)", true),
    STAR("star", "obj star(obj)", true),
    RAW_TCP("raw_tcp", "raw TCP ping-pong", false),
    THROW("throw", "throw(obj)", true),
    // asynchronous calls ("Implementing Asynchronous RMI in Java"): one-way and future in the compare script's +async configurations, synchronous
    // elsewhere; on request only (--kernels)
    ONEWAY("oneway", "void onewayPing() (one-way: calls/s)", false),
    ONEWAY_STAR("oneway_star", "void onewayPing() from star threads", false),
    FUTURE_LATE("future_late", "future echo(32int), used late", false),
    FUTURE_NOW("future_now", "future echo(32int), used at once", false),
    FUTURE_SYNC("future_sync", "echo(32int) synchronous, same type", false),
    FUTURE_WAIT1MS("future_wait1ms", "1000 x wait 1 ms, futures (loop)", false),
    SYNC_WAIT1MS("sync_wait1ms", "1000 x wait 1 ms, synchronous (loop)", false),
    API_WAIT1MS("api_wait1ms", "1000 x wait 1 ms, Remora.async (loop)", false);

    private final String id;
    private final String label;
    private final boolean takesObject;

    Kernel(String id, String label, boolean takesObject) {
        this.id = id;
        this.label = label;
        this.takesObject = takesObject;
    }

    public String id() {
        return id;
    }

    public String label() {
        return label;
    }

    public boolean takesObject() {
        return takesObject;
    }

    /** By id (case-insensitive); the error lists the ids. */
    public static Kernel byId(String id) {
        for (Kernel k : values()) {
            if (k.id.equalsIgnoreCase(id.trim())) {
                return k;
            }
        }
        throw new IllegalArgumentException("unknown kernel '" + id + "': use " + ids() + " or all");
    }

    /** Comma-separated ids or {@code all} (every kernel). */
    public static List<Kernel> parseList(String list) {
        List<Kernel> out = new ArrayList<>();
        for (String s : list.split(",")) {
            if (s.isBlank()) {
                continue;
            }
            if (s.trim().equalsIgnoreCase("all")) {
                for (Kernel k : values()) {
                    if (!out.contains(k)) {
                        out.add(k);
                    }
                }
            } else {
                Kernel k = byId(s);
                if (!out.contains(k)) {
                    out.add(k);
                }
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no kernels in '" + list + "': use " + ids() + " or all");
        }
        return out;
    }

    static String ids() {
        StringBuilder sb = new StringBuilder();
        for (Kernel k : values()) {
            sb.append(sb.length() == 0 ? "" : ",").append(k.id);
        }
        return sb.toString();
    }
}
