package dev.remora.it.fidelity;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.IOException;
import java.io.ObjectInput;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Date;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

/**
 * Random object graphs of every kind of value serialization carries, and a comparison of two graphs for equality
 * and sharing, for property-based round trips: whatever Remora gives back must be what the JDK's own round trip
 * gives back. A graph of seed {@code s} is always the same graph.
 *
 * <p>Strings are made of random chars (lone surrogates, NUL, pairs), floats and doubles include -0.0, infinities and
 * NaNs with payloads; objects are shared and cyclic (through {@link Node} and {@code Object[]}); arrays are
 * sometimes large enough (16 KB and more) to travel outside the serializer's buffer.
 */
public final class Graphs {
    private final Random r;
    private final List<Object> pool = new ArrayList<>();
    private int budget;

    private Graphs(long seed) {
        r = new Random(seed);
    }

    /** The graph of this seed: an object of some 1-200 values. */
    public static Object graph(long seed) {
        Graphs g = new Graphs(seed);
        g.budget = 1 + g.r.nextInt(200);
        return g.value(4);
    }

    /** Strings that a codec built on a charset changes. */
    public static List<Object> hardValues() {
        Random r = new Random(7);
        List<Object> l = new ArrayList<>(List.of("a\uD800b", "\uDC00", "\uDBFF", "x\uDC00\uD800y",
                "\uD83D\uDE00", "nul\u0000nul", "\u00FF\u0100", "\uFFFF", ""));
        l.add(chars(r, 1000));
        l.add(chars(r, 100_000));
        l.add(new Object[] {"a\uD800b", chars(r, 300), "\uDC00", "a\uD800b"});
        return l;
    }

    static String chars(Random r, int n) {
        char[] c = new char[n];
        for (int i = 0; i < n; i++) {
            c[i] = (char) r.nextInt(65536);
        }
        return new String(c);
    }

    private String string() {
        int kind = r.nextInt(10);
        int n = kind == 0 ? 0 : kind < 7 ? r.nextInt(20) : kind < 9 ? r.nextInt(2000) : r.nextInt(40_000);
        char[] c = new char[n];
        int alphabet = r.nextInt(4); // ASCII, Latin-1, all chars, surrogates and NUL
        for (int i = 0; i < n; i++) {
            switch (alphabet) {
                case 0: c[i] = (char) (0x20 + r.nextInt(0x5F)); break;
                case 1: c[i] = (char) r.nextInt(0x100); break;
                case 2: c[i] = (char) r.nextInt(0x10000); break;
                default: c[i] = r.nextBoolean() ? (char) (0xD800 + r.nextInt(0x800)) : r.nextBoolean() ? '\0' : 'x';
            }
        }
        return new String(c);
    }

    private float aFloat() {
        switch (r.nextInt(8)) {
            case 0: return -0.0f;
            case 1: return Float.NaN;
            case 2: return Float.intBitsToFloat(0x7F800001 + r.nextInt(0x7FFFFF)); // NaN with a payload
            case 3: return r.nextBoolean() ? Float.POSITIVE_INFINITY : Float.NEGATIVE_INFINITY;
            case 4: return Float.MIN_VALUE;
            default: return Float.intBitsToFloat(r.nextInt());
        }
    }

    private double aDouble() {
        switch (r.nextInt(8)) {
            case 0: return -0.0;
            case 1: return Double.NaN;
            case 2: return Double.longBitsToDouble(0xFFF0000000000001L + (r.nextLong() & 0xFFFFFFFFFFFFEL));
            case 3: return r.nextBoolean() ? Double.POSITIVE_INFINITY : Double.NEGATIVE_INFINITY;
            case 4: return Double.MIN_VALUE;
            default: return Double.longBitsToDouble(r.nextLong());
        }
    }

    private char aChar() {
        return r.nextInt(4) == 0 ? (char) (0xD800 + r.nextInt(0x800)) : (char) r.nextInt(0x10000);
    }

    private int length() {
        return r.nextInt(30) == 0 ? 20_000 + r.nextInt(5000) : r.nextInt(12);
    }

    private <T> T add(T o) {
        pool.add(o);
        return o;
    }

    private Object value(int depth) {
        budget--;
        if (!pool.isEmpty() && r.nextInt(6) == 0) {
            return pool.get(r.nextInt(pool.size())); // sharing, and cycles where the pooled object is an ancestor
        }
        boolean leaf = depth <= 0 || budget <= 0;
        int kind = r.nextInt(leaf ? 16 : 32);
        switch (kind) {
            case 0: return null;
            case 1: return r.nextBoolean();
            case 2: return (byte) r.nextInt();
            case 3: return (short) r.nextInt();
            case 4: return aChar();
            case 5: return r.nextInt();
            case 6: return r.nextLong();
            case 7: return aFloat();
            case 8: return aDouble();
            case 9: case 10: return add(string());
            case 11: return r.nextBoolean() ? TimeUnit.values()[r.nextInt(7)] : Color.values()[r.nextInt(3)];
            case 12: return add(new BigDecimal(new BigInteger(r.nextInt(200) + 1, r), r.nextInt(40) - 20));
            case 13: return add(new Date(r.nextLong() >> 20));
            case 14: return add(new UUID(r.nextLong(), r.nextLong()));
            case 15: return add(primitiveArray());
            case 16: case 17: case 18: return node(depth);
            case 19: case 20: {
                Object[] a = add(r.nextBoolean() ? new Object[r.nextInt(6)] : new Serializable[r.nextInt(6)]);
                for (int i = 0; i < a.length; i++) {
                    a[i] = a instanceof Serializable[] ? (Serializable) serializable(depth - 1) : value(depth - 1);
                }
                return a;
            }
            case 21: {
                String[] a = add(new String[r.nextInt(6)]);
                for (int i = 0; i < a.length; i++) {
                    a[i] = r.nextInt(5) == 0 ? null : string();
                }
                return a;
            }
            case 22: {
                int[][] a = add(new int[r.nextInt(4)][]);
                for (int i = 0; i < a.length; i++) {
                    a[i] = r.nextBoolean() ? null : new int[r.nextInt(5)];
                }
                return a;
            }
            case 23: return fill(add(r.nextBoolean() ? new ArrayList<>() : new LinkedList<>()), depth);
            case 24: case 25: {
                int which = r.nextInt(3);
                Map<String, Object> m = add(which == 0 ? new HashMap<>() : which == 1 ? new TreeMap<>()
                        : new LinkedHashMap<>());
                for (int i = r.nextInt(6); i > 0; i--) {
                    m.put(string(), value(depth - 1));
                }
                return m;
            }
            case 26: {
                HashSet<String> s = add(new HashSet<>());
                for (int i = r.nextInt(6); i > 0; i--) {
                    s.add(string());
                }
                return s;
            }
            case 27: return add(new Rec(string(), r.nextInt(), aDouble(), value(depth - 1)));
            case 28: {
                Custom c = add(new Custom());
                c.text = string();
                c.c = aChar();
                c.f = aFloat();
                c.other = value(depth - 1);
                return c;
            }
            case 29: {
                Ext e = add(new Ext());
                e.text = r.nextBoolean() ? string() : null;
                e.d = aDouble();
                e.other = value(depth - 1);
                return e;
            }
            case 30: return add(BigInteger.valueOf(r.nextLong()).shiftLeft(r.nextInt(100)));
            default: return add(new Object[] {string(), string()});
        }
    }

    private Object serializable(int depth) {
        Object o = value(depth);
        return o instanceof Serializable ? o : null;
    }

    private Collection<Object> fill(Collection<Object> c, int depth) {
        for (int i = r.nextInt(6); i > 0; i--) {
            c.add(value(depth - 1));
        }
        return c;
    }

    private Object primitiveArray() {
        int n = length();
        switch (r.nextInt(8)) {
            case 0: {
                boolean[] a = new boolean[n];
                for (int i = 0; i < n; i++) {
                    a[i] = r.nextBoolean();
                }
                return a;
            }
            case 1: {
                byte[] a = new byte[n];
                r.nextBytes(a);
                return a;
            }
            case 2: {
                short[] a = new short[n];
                for (int i = 0; i < n; i++) {
                    a[i] = (short) r.nextInt();
                }
                return a;
            }
            case 3: {
                char[] a = new char[n];
                for (int i = 0; i < n; i++) {
                    a[i] = aChar();
                }
                return a;
            }
            case 4: {
                int[] a = new int[n];
                for (int i = 0; i < n; i++) {
                    a[i] = r.nextInt();
                }
                return a;
            }
            case 5: {
                long[] a = new long[n];
                for (int i = 0; i < n; i++) {
                    a[i] = r.nextLong();
                }
                return a;
            }
            case 6: {
                float[] a = new float[n];
                for (int i = 0; i < n; i++) {
                    a[i] = aFloat();
                }
                return a;
            }
            default: {
                double[] a = new double[n];
                for (int i = 0; i < n; i++) {
                    a[i] = aDouble();
                }
                return a;
            }
        }
    }

    private Node node(int depth) {
        Node n = add(new Node()); // pooled before its children: a child may point back to it
        n.z = r.nextBoolean();
        n.b = (byte) r.nextInt();
        n.c = aChar();
        n.s = (short) r.nextInt();
        n.i = r.nextInt();
        n.j = r.nextLong();
        n.f = aFloat();
        n.d = aDouble();
        n.text = r.nextBoolean() ? string() : null;
        n.left = value(depth - 1);
        n.right = r.nextBoolean() ? value(depth - 1) : n;
        return n;
    }

    // ------------------------------------------------------------------ the value types

    public enum Color { RED, GREEN, BLUE }

    /** Every primitive field, a string, and two references (sharing and cycles). */
    public static final class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        boolean z;
        byte b;
        char c;
        short s;
        int i;
        long j;
        float f;
        double d;
        String text;
        Object left;
        Object right;
    }

    /** A class with its own writeObject/readObject: strings through writeUTF and writeObject, a char, a float. */
    public static final class Custom implements Serializable {
        private static final long serialVersionUID = 1L;
        transient String text;
        transient char c;
        transient float f;
        Object other;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeUTF(text.length() > 10_000 ? text.substring(0, 10_000) : text);
            out.writeObject(text);
            out.writeChar(c);
            out.writeFloat(f);
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            String utf = in.readUTF();
            text = (String) in.readObject();
            if (!text.startsWith(utf)) {
                throw new IOException("writeUTF and writeObject of one string disagree");
            }
            c = in.readChar();
            f = in.readFloat();
        }
    }

    public static final class Ext implements Externalizable {
        private static final long serialVersionUID = 1L;
        String text;
        double d;
        Object other;

        public Ext() {
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeObject(text);
            out.writeDouble(d);
            out.writeObject(other);
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException, ClassNotFoundException {
            text = (String) in.readObject();
            d = in.readDouble();
            other = in.readObject();
        }
    }

    public record Rec(String name, int n, double d, Object other) implements Serializable {
    }

    // ------------------------------------------------------------------ comparison

    /** The JDK's own round trip, through subclassed streams (which {@code remora.oos=fast} leaves to the JDK). */
    public static Object jdkRoundTrip(Object o) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b) { }) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray())) { }) {
            return in.readObject();
        }
    }

    /**
     * Null when {@code actual} equals {@code expected} with the same sharing (the same objects are one object in
     * both, and no others); else where and how they differ. Floats and doubles compare as {@code Float.equals}
     * does (NaN payloads aside, see the serializer's README).
     */
    public static String difference(Object expected, Object actual) {
        Comparison c = new Comparison();
        try {
            c.same(expected, actual, "$");
            return null;
        } catch (Mismatch m) {
            return m.getMessage();
        }
    }

    private static final class Mismatch extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Mismatch(String path, String what) {
            super(path + ": " + what, null, false, false);
        }
    }

    private static final class Comparison {
        private final IdentityHashMap<Object, Object> forth = new IdentityHashMap<>();
        private final IdentityHashMap<Object, Object> back = new IdentityHashMap<>();

        void same(Object a, Object b, String path) {
            if (a == null || b == null) {
                if (a != b) {
                    throw new Mismatch(path, describe(a) + " vs " + describe(b));
                }
                return;
            }
            if (a.getClass() != b.getClass()) {
                throw new Mismatch(path, "class " + a.getClass().getName() + " vs " + b.getClass().getName());
            }
            if (a instanceof Enum) {
                if (a != b) {
                    throw new Mismatch(path, a + " vs " + b);
                }
                return;
            }
            Object seen = forth.get(a);
            if (seen != null) {
                if (seen != b) {
                    throw new Mismatch(path, "sharing: one object on one side, two on the other");
                }
                return;
            }
            if (back.containsKey(b)) {
                throw new Mismatch(path, "sharing: two objects on one side, one on the other");
            }
            forth.put(a, b);
            back.put(b, a);
            compare(a, b, path);
        }

        private void compare(Object a, Object b, String path) {
            Class<?> c = a.getClass();
            if (a instanceof String) {
                if (!a.equals(b)) {
                    throw new Mismatch(path, "string " + firstDifference((String) a, (String) b));
                }
            } else if (a instanceof Number || a instanceof Boolean || a instanceof Character || a instanceof Date
                    || a instanceof UUID) {
                if (!a.equals(b)) { // Float/Double.equals compare floatToIntBits: -0.0 != 0.0, NaN == NaN
                    throw new Mismatch(path, a + " vs " + b);
                }
            } else if (c.isArray() && c.getComponentType().isPrimitive()) {
                if (!primitiveArraysEqual(a, b)) {
                    throw new Mismatch(path, c.getSimpleName() + " contents differ");
                }
            } else if (c.isArray()) {
                Object[] x = (Object[]) a;
                Object[] y = (Object[]) b;
                length(x.length, y.length, path);
                for (int i = 0; i < x.length; i++) {
                    same(x[i], y[i], path + "[" + i + "]");
                }
            } else if (a instanceof TreeMap || a instanceof LinkedHashMap) {
                entries(((Map<?, ?>) a).entrySet().iterator(), ((Map<?, ?>) b).entrySet().iterator(),
                        ((Map<?, ?>) a).size(), ((Map<?, ?>) b).size(), path);
            } else if (a instanceof HashMap) {
                entries(new TreeMap<>(keyed((Map<?, ?>) a)).entrySet().iterator(),
                        new TreeMap<>(keyed((Map<?, ?>) b)).entrySet().iterator(), ((Map<?, ?>) a).size(),
                        ((Map<?, ?>) b).size(), path);
            } else if (a instanceof HashSet) {
                List<Object> x = new ArrayList<>((HashSet<?>) a);
                List<Object> y = new ArrayList<>((HashSet<?>) b);
                x.sort(null);
                y.sort(null);
                length(x.size(), y.size(), path);
                for (int i = 0; i < x.size(); i++) {
                    same(x.get(i), y.get(i), path + "{" + i + "}");
                }
            } else if (a instanceof List) {
                Iterator<?> x = ((List<?>) a).iterator();
                Iterator<?> y = ((List<?>) b).iterator();
                length(((List<?>) a).size(), ((List<?>) b).size(), path);
                for (int i = 0; x.hasNext(); i++) {
                    same(x.next(), y.next(), path + "(" + i + ")");
                }
            } else if (c.getName().startsWith("dev.remora.")) {
                fields(a, b, c, path);
            } else {
                throw new Mismatch(path, "no comparison for " + c.getName());
            }
        }

        /** A HashMap as a map keyed by its string keys, so that both sides iterate in one order. */
        private static Map<String, Map.Entry<?, ?>> keyed(Map<?, ?> m) {
            Map<String, Map.Entry<?, ?>> k = new HashMap<>();
            for (Map.Entry<?, ?> e : m.entrySet()) {
                k.put((String) e.getKey(), e);
            }
            return k;
        }

        private void entries(Iterator<? extends Map.Entry<?, ?>> x, Iterator<? extends Map.Entry<?, ?>> y, int nx,
                int ny, String path) {
            length(nx, ny, path);
            for (int i = 0; x.hasNext(); i++) {
                Map.Entry<?, ?> ex = x.next();
                Map.Entry<?, ?> ey = y.next();
                if (ex.getValue() instanceof Map.Entry) { // from keyed(): the HashMap's own entries
                    ex = (Map.Entry<?, ?>) ex.getValue();
                    ey = (Map.Entry<?, ?>) ey.getValue();
                }
                same(ex.getKey(), ey.getKey(), path + ".key" + i);
                same(ex.getValue(), ey.getValue(), path + ".value" + i);
            }
        }

        private void fields(Object a, Object b, Class<?> c, String path) {
            for (Class<?> k = c; k != Object.class; k = k.getSuperclass()) {
                for (Field f : k.getDeclaredFields()) {
                    if (Modifier.isStatic(f.getModifiers())) {
                        continue;
                    }
                    f.setAccessible(true);
                    try {
                        Object x = f.get(a);
                        Object y = f.get(b);
                        if (f.getType().isPrimitive()) {
                            if (!Objects.equals(x, y)) {
                                throw new Mismatch(path + "." + f.getName(), x + " vs " + y);
                            }
                        } else {
                            same(x, y, path + "." + f.getName());
                        }
                    } catch (IllegalAccessException e) {
                        throw new IllegalStateException(e);
                    }
                }
            }
        }

        private static void length(int x, int y, String path) {
            if (x != y) {
                throw new Mismatch(path, "length " + x + " vs " + y);
            }
        }
    }

    private static boolean primitiveArraysEqual(Object a, Object b) {
        if (a instanceof boolean[]) {
            return Arrays.equals((boolean[]) a, (boolean[]) b);
        } else if (a instanceof byte[]) {
            return Arrays.equals((byte[]) a, (byte[]) b);
        } else if (a instanceof short[]) {
            return Arrays.equals((short[]) a, (short[]) b);
        } else if (a instanceof char[]) {
            return Arrays.equals((char[]) a, (char[]) b);
        } else if (a instanceof int[]) {
            return Arrays.equals((int[]) a, (int[]) b);
        } else if (a instanceof long[]) {
            return Arrays.equals((long[]) a, (long[]) b);
        } else if (a instanceof float[]) {
            return Arrays.equals((float[]) a, (float[]) b); // floatToIntBits, as Float.equals
        }
        return Arrays.equals((double[]) a, (double[]) b);
    }

    private static String describe(Object o) {
        return o == null ? "null" : o.getClass().getName();
    }

    private static String firstDifference(String a, String b) {
        int i = 0;
        while (i < a.length() && i < b.length() && a.charAt(i) == b.charAt(i)) {
            i++;
        }
        return String.format("lengths %d vs %d, first difference at %d: %s vs %s", a.length(), b.length(), i,
                i < a.length() ? String.format("\\u%04X", (int) a.charAt(i)) : "end",
                i < b.length() ? String.format("\\u%04X", (int) b.charAt(i)) : "end");
    }
}
