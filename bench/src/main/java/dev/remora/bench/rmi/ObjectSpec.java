package dev.remora.bench.rmi;

import java.util.ArrayList;
import java.util.List;

/**
 * One parameter object of the collection: a kind and, for arrays, a length. Specs parse from and print as the
 * labels users type ({@code null}, {@code byte[50]}, {@code int[5000]}, {@code float[20000]}, {@code 4int},
 * {@code 4int2null}, {@code 32int}, {@code tree15}); {@link #create()} builds the deterministic instance sent.
 */
public record ObjectSpec(Kind kind, int n) {

    /** Array lengths of "KaRMI"'s collection. */
    public static final int[] ALL_SIZES = {50, 200, 500, 2000, 5000, 20000};

    /** The kinds of parameter object; {@code NONE} for kernels without one. */
    public enum Kind {
        NONE("-"), NULL("null"), BYTES("byte[]"), INTS("int[]"), FLOATS("float[]"), INT4("4int"),
        INT4NULL2("4int2null"), INT32("32int"), TREE15("tree15"), RAW("raw");

        private final String csv;

        Kind(String csv) {
            this.csv = csv;
        }

        /** The value of the CSV {@code object} column. */
        public String csv() {
            return csv;
        }

        boolean isArray() {
            return this == BYTES || this == INTS || this == FLOATS;
        }
    }

    /** Used by kernels that take no object. */
    public static final ObjectSpec NONE = new ObjectSpec(Kind.NONE, 0);

    public ObjectSpec {
        if (kind.isArray() || kind == Kind.RAW ? n <= 0 : n != 0) {
            throw new IllegalArgumentException("bad length " + n + " for " + kind.csv());
        }
    }

    /** Parses one label, e.g. {@code float[5000]} or {@code tree15}. */
    public static ObjectSpec parse(String label) {
        String s = label.trim().toLowerCase();
        switch (s) {
            case "null":
                return new ObjectSpec(Kind.NULL, 0);
            case "4int":
                return new ObjectSpec(Kind.INT4, 0);
            case "4int2null":
                return new ObjectSpec(Kind.INT4NULL2, 0);
            case "32int":
                return new ObjectSpec(Kind.INT32, 0);
            case "tree15":
            case "tree(15)":
                return new ObjectSpec(Kind.TREE15, 0);
            default:
                break;
        }
        int open = s.indexOf('[');
        if (open > 0 && s.endsWith("]")) {
            String type = s.substring(0, open);
            int n;
            try {
                n = Integer.parseInt(s.substring(open + 1, s.length() - 1));
            } catch (NumberFormatException e) {
                n = -1;
            }
            if (n > 0) {
                switch (type) {
                    case "byte":
                        return new ObjectSpec(Kind.BYTES, n);
                    case "int":
                        return new ObjectSpec(Kind.INTS, n);
                    case "float":
                        return new ObjectSpec(Kind.FLOATS, n);
                    default:
                        break;
                }
            }
        }
        throw new IllegalArgumentException("unknown object '" + label + "': use null, 4int, 4int2null, 32int, tree15,"
                + " byte[N], int[N], float[N] (N > 0), or the groups small, arrays, all");
    }

    /**
     * Parses a comma-separated list of labels and groups: {@code small} (null, 4int, 4int2null, 32int, tree15),
     * {@code arrays} (byte[], int[] and float[] of each of {@code sizes}), {@code all} (both).
     */
    public static List<ObjectSpec> parseList(String list, int[] sizes) {
        List<ObjectSpec> out = new ArrayList<>();
        for (String item : list.split(",")) {
            String s = item.trim();
            if (s.isEmpty()) {
                continue;
            }
            if (s.equals("small") || s.equals("all")) {
                addNew(out, parse("null"));
                addNew(out, parse("4int"));
                addNew(out, parse("4int2null"));
                addNew(out, parse("32int"));
                addNew(out, parse("tree15"));
            }
            if (s.equals("arrays") || s.equals("all")) {
                for (Kind k : new Kind[] {Kind.BYTES, Kind.INTS, Kind.FLOATS}) {
                    for (int n : sizes) {
                        addNew(out, new ObjectSpec(k, n));
                    }
                }
            }
            if (!s.equals("small") && !s.equals("arrays") && !s.equals("all")) {
                addNew(out, parse(s));
            }
        }
        if (out.isEmpty()) {
            throw new IllegalArgumentException("no objects in '" + list + "'");
        }
        return out;
    }

    private static void addNew(List<ObjectSpec> out, ObjectSpec s) {
        if (!out.contains(s)) {
            out.add(s);
        }
    }

    /** The label, e.g. {@code float[5000]}. */
    public String label() {
        if (kind.isArray()) {
            return kind.csv().substring(0, kind.csv().length() - 1) + n + "]";
        }
        if (kind == Kind.RAW) {
            return n + "B";
        }
        return kind.csv();
    }

    /** A fresh deterministic instance (the same content in every JVM and run). */
    public Object create() {
        switch (kind) {
            case NONE:
            case NULL:
                return null;
            case BYTES: {
                byte[] a = new byte[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (byte) (i * 31 + 7);
                }
                return a;
            }
            case INTS: {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = i * 0x9E3779B1;
                }
                return a;
            }
            case FLOATS: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = i * 0.5f + 0.25f;
                }
                return a;
            }
            case INT4:
                return new Int4(1, 2, 3, 4);
            case INT4NULL2:
                return new Int4Null2(5, 6, 7, 8);
            case INT32:
                return Int32.sample();
            case TREE15:
                return Tree.balanced(4);
            case RAW: {
                byte[] a = new byte[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (byte) i;
                }
                return a;
            }
            default:
                throw new AssertionError(kind);
        }
    }

    @Override
    public String toString() {
        return label();
    }
}
