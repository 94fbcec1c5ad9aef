package dev.remora.bench.rmi;

import java.util.ArrayList;
import java.util.List;

/**
 * The kernels of "KaRMI" section 6.1 plus two of Remora's own: the raw Java TCP ping-pong (the floor that
 * Remora's null ping is judged against) and {@code throw(obj)} (the exception path). {@link #id()} is the CSV
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
    THROW("throw", "throw(obj)", true);

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
