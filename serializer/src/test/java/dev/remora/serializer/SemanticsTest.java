package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.Externalizable;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.InvalidObjectException;
import java.io.NotSerializableException;
import java.io.ObjectInput;
import java.io.ObjectInputStream;
import java.io.ObjectInputValidation;
import java.io.ObjectOutput;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.ObjectStreamField;
import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Date;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.Supplier;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Each semantic item of the issue, round-tripped through Remora's streams and through JDK serialization on the same
 * object graph: equal results, identity and cycles kept, same exception types and messages.
 */
class SemanticsTest {

    private final RoundTrip rt;

    SemanticsTest() throws IOException {
        rt = new RoundTrip();
    }

    /** Round-trips through both and checks the results are equal to each other and to the original. */
    private Object both(Object o) throws Exception {
        Object ours = rt.roundTrip(o);
        Object jdk = RoundTrip.jdk(o);
        assertDeepEquals(jdk, ours);
        return ours;
    }

    private static void assertDeepEquals(Object a, Object b) {
        assertTrue(Objects.deepEquals(a, b), () -> "JDK gave " + str(a) + " but Remora gave " + str(b));
    }

    private static String str(Object o) {
        return o instanceof Object[] ? Arrays.deepToString((Object[]) o) : String.valueOf(o);
    }

    // ------------------------------------------------------------ hierarchies, transient

    static class NonSerBase {
        int baseField;
        String viaCtor;

        NonSerBase() {
            viaCtor = "ctor ran";
        }
    }

    static class Mid extends NonSerBase implements Serializable {
        int mid = 5;
        transient int notSent = 9;
        transient String notSentRef = "gone";
    }

    static final class Leaf extends Mid {
        private final long leaf;
        private final String s;

        Leaf(long leaf, String s) {
            this.leaf = leaf;
            this.s = s;
            this.baseField = 77;
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Leaf)) {
                return false;
            }
            Leaf l = (Leaf) o;
            return l.leaf == leaf && Objects.equals(l.s, s) && l.mid == mid && l.notSent == notSent
                    && Objects.equals(l.notSentRef, notSentRef) && l.baseField == baseField
                    && Objects.equals(l.viaCtor, viaCtor);
        }

        @Override
        public int hashCode() {
            return Long.hashCode(leaf);
        }

        @Override
        public String toString() {
            return "Leaf[" + leaf + "," + s + "," + mid + "," + notSent + "," + notSentRef + "," + baseField + ","
                    + viaCtor + "]";
        }
    }

    @Test
    void hierarchyTransientAndNonSerializableSuperclassConstructor() throws Exception {
        Leaf l = (Leaf) both(new Leaf(42, "s"));
        assertEquals(0, l.notSent);
        assertNull(l.notSentRef);
        assertEquals(0, l.baseField); // non-serializable superclass state comes from its constructor
        assertEquals("ctor ran", l.viaCtor);
        assertEquals(42, l.leaf);
    }

    // ------------------------------------------------------------ serialPersistentFields, putFields/readFields

    static final class Persistent implements Serializable {
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("x", int.class), new ObjectStreamField("name", String.class),
            new ObjectStreamField("virtual", double.class)};
        int x;
        String name;
        int notListed = 3;
        transient double cache;

        private void writeObject(ObjectOutputStream out) throws IOException {
            ObjectOutputStream.PutField f = out.putFields();
            f.put("x", x * 2);
            f.put("name", name);
            f.put("virtual", 1.5);
            out.writeFields();
            out.writeUTF("after fields");
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            ObjectInputStream.GetField f = in.readFields();
            x = f.get("x", -1);
            name = (String) f.get("name", "none");
            cache = f.get("virtual", 0d);
            assertThrows(IllegalArgumentException.class, () -> f.get("nope", 0));
            notListed = in.readUTF().length();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Persistent && ((Persistent) o).x == x && Objects.equals(((Persistent) o).name, name)
                    && ((Persistent) o).notListed == notListed && ((Persistent) o).cache == cache;
        }

        @Override
        public int hashCode() {
            return x;
        }

        @Override
        public String toString() {
            return "Persistent[" + x + "," + name + "," + notListed + "," + cache + "]";
        }
    }

    static final class PersistentDefault implements Serializable {
        private static final ObjectStreamField[] serialPersistentFields = {new ObjectStreamField("kept", int.class)};
        int kept = 1;
        int dropped = 2;

        @Override
        public boolean equals(Object o) {
            return o instanceof PersistentDefault && ((PersistentDefault) o).kept == kept
                    && ((PersistentDefault) o).dropped == dropped;
        }

        @Override
        public int hashCode() {
            return kept;
        }
    }

    @Test
    void serialPersistentFieldsWithPutFieldsAndDefault() throws Exception {
        Persistent p = new Persistent();
        p.x = 21;
        p.name = "n";
        Persistent r = (Persistent) both(p);
        assertEquals(42, r.x);
        assertEquals(12, r.notListed);
        PersistentDefault d = (PersistentDefault) both(new PersistentDefault());
        assertEquals(0, d.dropped);
    }

    // ------------------------------------------------------------ writeObject/readObject with custom data

    static final class Custom implements Serializable {
        int a;
        transient int[] extra;
        transient List<String> names;
        transient int unread;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(extra.length);
            for (int e : extra) {
                out.writeInt(e);
            }
            out.writeObject(names);
            out.writeLong(123456789L);
            out.writeObject("tail not read"); // the reader does not read this: both streams skip it
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            extra = new int[in.readInt()];
            for (int i = 0; i < extra.length; i++) {
                extra[i] = in.readInt();
            }
            @SuppressWarnings("unchecked")
            List<String> n = (List<String>) in.readObject();
            names = n;
            unread = (int) in.readLong();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Custom && ((Custom) o).a == a && Arrays.equals(((Custom) o).extra, extra)
                    && Objects.equals(((Custom) o).names, names) && ((Custom) o).unread == unread;
        }

        @Override
        public int hashCode() {
            return a;
        }
    }

    static final class Holder implements Serializable {
        Object first;
        Object second;
        Object third;

        @Override
        public boolean equals(Object o) {
            return o instanceof Holder && Objects.equals(((Holder) o).first, first)
                    && Objects.equals(((Holder) o).second, second) && Objects.equals(((Holder) o).third, third);
        }

        @Override
        public int hashCode() {
            return 1;
        }
    }

    @Test
    void writeObjectReadObjectCustomDataAndSkippedTail() throws Exception {
        Custom c = new Custom();
        c.a = 7;
        c.extra = new int[] {1, 2, 3};
        c.names = new ArrayList<>(List.of("x", "y"));
        Holder h = new Holder();
        h.first = c;
        h.second = c.names; // shared with data inside the custom section
        h.third = "after";
        Holder r = (Holder) both(h);
        assertSame(((Custom) r.first).names, r.second);
        assertEquals("after", r.third);
    }

    static final class ReadsTooMuch implements Serializable {
        int v = 1;

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.readInt(); // the writer wrote no custom data
        }
    }

    static final class ReadsObjectTooMuch implements Serializable {
        int v = 1;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.readObject();
        }
    }

    @Test
    void readingPastCustomDataFailsAsInTheJdk() throws Exception {
        // the JDK reports reading past a class's data as OptionalDataException or EOFException depending on
        // what follows in the stream; Remora always says EOFException for primitives: both are IOExceptions
        Class<? extends Throwable> jdk = thrown(() -> RoundTrip.jdk(new ReadsTooMuch()));
        Class<? extends Throwable> ours = thrown(() -> rt.roundTrip(new ReadsTooMuch()));
        assertTrue(IOException.class.isAssignableFrom(jdk) && IOException.class.isAssignableFrom(ours),
                jdk + " / " + ours);
        jdk = thrown(() -> RoundTrip.jdk(new ReadsObjectTooMuch()));
        ours = thrown(() -> rt.roundTrip(new ReadsObjectTooMuch()));
        assertEquals(jdk, ours);
    }

    // ------------------------------------------------------------ readObjectNoData, evolution, SVUID

    /** Maps a v1 class name onto the v2 class of the same simple name. */
    static Class<?> toV2(String name) throws ClassNotFoundException {
        return Class.forName(name.replace(".v1.", ".v2."), false, SemanticsTest.class.getClassLoader());
    }

    static Object jdkAsV2(Object o) throws Exception {
        ByteArrayInputStream b = new ByteArrayInputStream(RoundTrip.jdkBytes(o));
        try (ObjectInputStream in = new ObjectInputStream(b) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass desc) throws ClassNotFoundException {
                return toV2(desc.getName());
            }
        }) {
            return in.readObject();
        }
    }

    @Test
    void evolvedClassReadObjectNoDataAndFieldMatching() throws Exception {
        RoundTrip v2 = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2));
        Object ours = v2.roundTrip(new dev.remora.serializer.v1.Evolve());
        Object jdk = jdkAsV2(new dev.remora.serializer.v1.Evolve());
        assertEquals("Evolve[b=bee, c=0, base=noData]", jdk.toString());
        assertEquals(jdk.toString(), ours.toString());
    }

    @Test
    void serialVersionUidMismatchIsInvalidClassException() throws Exception {
        RoundTrip v2 = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(SemanticsTest::toV2));
        InvalidClassException jdk = assertThrows(InvalidClassException.class,
                () -> jdkAsV2(new dev.remora.serializer.v1.Suid()));
        InvalidClassException ours = assertThrows(InvalidClassException.class,
                () -> v2.roundTrip(new dev.remora.serializer.v1.Suid()));
        assertEquals(jdk.getMessage(), ours.getMessage());
    }

    // ------------------------------------------------------------ writeReplace / readResolve

    static final class Replaced implements Serializable {
        final int v;

        Replaced(int v) {
            this.v = v;
        }

        private Object writeReplace() {
            return new Proxyish(v);
        }
    }

    static final class Proxyish implements Serializable {
        final int v;

        Proxyish(int v) {
            this.v = v;
        }

        private Object readResolve() {
            return "resolved:" + v;
        }
    }

    static final class Singleton implements Serializable {
        static final Singleton INSTANCE = new Singleton();

        private Object readResolve() {
            return INSTANCE;
        }
    }

    @Test
    void writeReplaceAndReadResolveInJdkOrder() throws Exception {
        Replaced r = new Replaced(4);
        Object[] ours = rt.roundTripAll(r, r, Singleton.INSTANCE);
        Object[] jdk = RoundTrip.jdkAll(r, r, Singleton.INSTANCE);
        assertDeepEquals(jdk, ours);
        assertEquals("resolved:4", ours[0]);
        assertSame(ours[0], ours[1]);
        assertSame(Singleton.INSTANCE, ours[2]);
    }

    // ------------------------------------------------------------ Externalizable

    public static final class Ext implements Externalizable {
        int a;
        String b;

        public Ext() {
        }

        Ext(int a, String b) {
            this.a = a;
            this.b = b;
        }

        @Override
        public void writeExternal(ObjectOutput out) throws IOException {
            out.writeInt(a);
            out.writeObject(b);
            out.writeUTF("skip me");
        }

        @Override
        public void readExternal(ObjectInput in) throws IOException, ClassNotFoundException {
            a = in.readInt();
            b = (String) in.readObject();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Ext && ((Ext) o).a == a && Objects.equals(((Ext) o).b, b);
        }

        @Override
        public int hashCode() {
            return a;
        }
    }

    static final class ExtNoCtor implements Externalizable {
        ExtNoCtor(int x) {
        }

        @Override
        public void writeExternal(ObjectOutput out) {
        }

        @Override
        public void readExternal(ObjectInput in) {
        }
    }

    @Test
    void externalizable() throws Exception {
        Ext e = new Ext(3, "b");
        Object[] ours = rt.roundTripAll(e, "next", e);
        assertDeepEquals(RoundTrip.jdkAll(e, "next", e), ours);
        assertSame(ours[0], ours[2]);
        InvalidClassException jdk = assertThrows(InvalidClassException.class, () -> RoundTrip.jdk(new ExtNoCtor(1)));
        InvalidClassException our = assertThrows(InvalidClassException.class, () -> rt.roundTrip(new ExtNoCtor(1)));
        assertEquals(jdk.getMessage(), our.getMessage());
    }

    // ------------------------------------------------------------ enums, records

    enum Color { RED, GREEN { @Override public String toString() { return "g"; } }, BLUE }

    record Point(int x, String label, double[] extra) implements Serializable {
        Point {
            if (x < 0) {
                throw new IllegalArgumentException("negative x");
            }
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point && ((Point) o).x == x && Objects.equals(((Point) o).label, label)
                    && Arrays.equals(((Point) o).extra, extra);
        }

        @Override
        public int hashCode() {
            return x;
        }
    }

    @Test
    void enumsAndRecords() throws Exception {
        Object[] ours = rt.roundTripAll(Color.RED, Color.GREEN, EnumSet.of(Color.BLUE, Color.GREEN),
                new EnumMap<>(Map.of(Color.RED, 1)));
        assertDeepEquals(RoundTrip.jdkAll(Color.RED, Color.GREEN, EnumSet.of(Color.BLUE, Color.GREEN),
                new EnumMap<>(Map.of(Color.RED, 1))), ours);
        assertSame(Color.GREEN, ours[1]);
        both(new Point(1, "p", new double[] {1, 2}));
        both(new Point(2, null, null));
    }

    // ------------------------------------------------------------ strings, arrays, Class objects, boxes

    @Test
    void stringsArraysClassesAndBoxes() throws Exception {
        StringBuilder big = new StringBuilder();
        for (int i = 0; i < 70_000; i++) {
            big.append((char) ('a' + i % 26));
        }
        String shared = "shared";
        Object[] graph = {"", "latin1 éà", "utf16 \u20ac \ud83d\ude00", big.toString(), shared, shared,
            new boolean[] {true, false}, new byte[] {1, -2}, new char[] {'x', '\u20ac'}, new short[] {-3, 4},
            new int[] {Integer.MIN_VALUE, 0, 1}, new long[] {Long.MAX_VALUE}, new float[] {1.5f, Float.NaN},
            new double[] {-0.0, Double.MIN_VALUE}, new int[0][], new int[][] {{1}, {2, 3}, null},
            new String[] {"a", null}, int.class, String.class, Leaf.class, int[][].class, Thread.class, void.class,
            Color.class, 1, 2L, (short) 3, (byte) 4, 'c', 1.5f, 2.5d, true, null,
            new BigInteger("123456789012345678901234567890"), new BigDecimal("-1.000000000000000000001")};
        Object[] ours = (Object[]) both(graph);
        assertSame(ours[4], ours[5]);
    }

    @Test
    void jdkLibraryClasses() throws Exception {
        Map<String, Object> m = new HashMap<>();
        m.put("list", new LinkedList<>(List.of(1, 2, 3)));
        m.put("tree", new TreeMap<>(Map.of("b", 2, "a", 1)));
        m.put("set", new HashSet<>(Set3.of()));
        m.put("linked", new LinkedHashMap<>(Map.of("k", "v")));
        m.put("immutable", List.of("a", "b"));
        m.put("immutableMap", Map.of("x", 1));
        m.put("unmodifiable", Collections.unmodifiableList(new ArrayList<>(List.of(9))));
        m.put("date", new Date(1234567890L));
        m.put("uuid", new UUID(1, 2));
        m.put("chm", new ConcurrentHashMap<>(Map.of("c", 3)));
        m.put("local", LocalDate.of(2026, 11, 22));
        m.put("instant", Instant.ofEpochSecond(5, 6));
        m.put("duration", Duration.ofMillis(1500));
        m.put("arraysAsList", Arrays.asList(1, 2));
        m.put("empty", Collections.emptyList());
        both(m);
        AtomicInteger a = (AtomicInteger) rt.roundTrip(new AtomicInteger(5));
        assertEquals(5, a.get());
    }

    static final class Set3 {
        static List<String> of() {
            return List.of("p", "q", "r");
        }
    }

    // ------------------------------------------------------------ proxies, lambdas

    interface Greeter {
        String greet(String who);
    }

    static final class Handler implements InvocationHandler, Serializable {
        final String prefix;

        Handler(String prefix) {
            this.prefix = prefix;
        }

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) {
            return m.getName().equals("greet") ? prefix + args[0] : null;
        }
    }

    @Test
    void dynamicProxiesAndLambdas() throws Exception {
        Greeter g = (Greeter) Proxy.newProxyInstance(Greeter.class.getClassLoader(), new Class<?>[] {Greeter.class},
                new Handler("hi "));
        Object[] ours = rt.roundTripAll(g, g);
        Greeter jdk = (Greeter) RoundTrip.jdk(g);
        Greeter r = (Greeter) ours[0];
        assertEquals(jdk.greet("bob"), r.greet("bob"));
        assertTrue(Proxy.isProxyClass(r.getClass()));
        assertSame(ours[0], ours[1]);

        int captured = 40;
        @SuppressWarnings("unchecked")
        Function<Integer, Integer> f = (Function<Integer, Integer> & Serializable) x -> x + captured;
        @SuppressWarnings("unchecked")
        Function<Integer, Integer> back = (Function<Integer, Integer>) rt.roundTrip(f);
        @SuppressWarnings("unchecked")
        Function<Integer, Integer> jdkBack = (Function<Integer, Integer>) RoundTrip.jdk(f);
        assertEquals(jdkBack.apply(2), back.apply(2));
        assertEquals(42, back.apply(2));
        Supplier<String> ref = (Supplier<String> & Serializable) "abc"::toUpperCase;
        @SuppressWarnings("unchecked")
        Supplier<String> refBack = (Supplier<String>) rt.roundTrip(ref);
        assertEquals("ABC", refBack.get());
    }

    // ------------------------------------------------------------ sharing, cycles, unshared, null

    static final class Node implements Serializable {
        Node left;
        Node right;
        Object payload;
    }

    @Test
    void sharedReferencesAndCycles() throws Exception {
        Node a = new Node();
        Node b = new Node();
        a.left = b;
        a.right = b;
        b.left = a;
        b.payload = new Object[] {a, b, null};
        ((Object[]) b.payload)[2] = b.payload;
        Node r = (Node) rt.roundTrip(a);
        assertSame(r.left, r.right);
        assertSame(r, r.left.left);
        Object[] p = (Object[]) r.left.payload;
        assertSame(r, p[0]);
        assertSame(r.left, p[1]);
        assertSame(p, p[2]);
        // the same instance in two objects of one call stays one instance; across calls it is copied again
        Object[] twice = rt.roundTripAll(a, a);
        assertSame(twice[0], twice[1]);
        assertNotSame(rt.roundTrip(a), rt.roundTrip(a));
        assertNull(rt.roundTrip(null));
    }

    @Test
    void writeUnsharedAndReadUnshared() throws Exception {
        Node n = new Node();
        // JDK
        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(bos)) {
            o.writeUnshared(n);
            o.writeObject(n);
            o.writeObject(n);
        }
        Object[] jdk = new Object[3];
        try (ObjectInputStream i = new ObjectInputStream(new ByteArrayInputStream(bos.toByteArray()))) {
            for (int k = 0; k < 3; k++) {
                jdk[k] = i.readObject();
            }
        }
        rt.out.beginCall();
        rt.out.writeUnshared(n);
        rt.out.writeObject(n);
        rt.out.writeObject(n);
        rt.out.finishCall();
        byte[] msg = Arrays.copyOf(rt.out.array(), rt.out.length());
        Object[] ours = rt.read(msg, 3);
        assertEquals(jdk[0] != jdk[1], ours[0] != ours[1]);
        assertEquals(jdk[1] == jdk[2], ours[1] == ours[2]);
        assertNotSame(ours[0], ours[1]);
        assertSame(ours[1], ours[2]);

        // readUnshared of an object referenced again: "cannot read back reference to unshared object"
        Node m = new Node();
        m.left = m;
        ByteArrayOutputStream b2 = new ByteArrayOutputStream();
        try (ObjectOutputStream o = new ObjectOutputStream(b2)) {
            o.writeObject(m);
        }
        InvalidObjectException je = assertThrows(InvalidObjectException.class, () -> {
            try (ObjectInputStream i = new ObjectInputStream(new ByteArrayInputStream(b2.toByteArray()))) {
                i.readUnshared();
            }
        });
        byte[] ourMsg = rt.write(m);
        InvalidObjectException oe = assertThrows(InvalidObjectException.class, () -> {
            rt.in.beginCall(ourMsg, 0, ourMsg.length);
            try {
                rt.in.readUnshared();
            } finally {
                rt.in.endCall();
            }
        });
        assertEquals(je.getMessage(), oe.getMessage());
    }

    // ------------------------------------------------------------ errors

    static final class HasNonSerializable implements Serializable {
        Object o = new Object();
    }

    static final class Throws implements Serializable {
        private void writeObject(ObjectOutputStream out) throws IOException {
            throw new IOException("custom failure");
        }
    }

    static class NoValidCtorBase {
        NoValidCtorBase(int x) {
        }
    }

    static final class NoValidCtor extends NoValidCtorBase implements Serializable {
        NoValidCtor() {
            super(1);
        }
    }

    @Test
    void sameExceptionsAsTheJdk() throws Exception {
        assertSameFailure(new HasNonSerializable());
        assertSameFailure(new Throws());
        assertSameFailure(new NoValidCtor());
        NotSerializableException e = assertThrows(NotSerializableException.class,
                () -> rt.roundTrip(new HasNonSerializable()));
        assertEquals("java.lang.Object", e.getMessage());
        // the connection is still usable after a failed call: its types were rolled back
        assertEquals("ok", rt.roundTrip("ok"));
        both(new Leaf(1, "x"));
    }

    interface Failing {
        Object run() throws Exception;
    }

    private static Class<? extends Throwable> thrown(Failing f) {
        try {
            f.run();
        } catch (Throwable t) {
            return t.getClass();
        }
        throw new AssertionError("expected a failure");
    }

    private void assertSameFailure(Object o) {
        Throwable jdk = assertThrows(Throwable.class, () -> RoundTrip.jdk(o));
        Throwable ours = assertThrows(Throwable.class, () -> rt.roundTrip(o));
        assertEquals(jdk.getClass(), ours.getClass(), () -> "JDK: " + jdk + ", Remora: " + ours);
        assertEquals(jdk.getMessage(), ours.getMessage());
    }

    // ------------------------------------------------------------ validation

    static final class Validated implements Serializable, ObjectInputValidation {
        static final List<String> LOG = new ArrayList<>();
        final String name;
        Validated child;

        Validated(String name) {
            this.name = name;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            in.registerValidation(this, name.length());
        }

        @Override
        public void validateObject() {
            LOG.add(name);
        }
    }

    @Test
    void registerValidationRunsAfterTheGraphByPriority() throws Exception {
        Validated v = new Validated("a");
        v.child = new Validated("bbb");
        Validated.LOG.clear();
        RoundTrip.jdk(v);
        List<String> jdk = new ArrayList<>(Validated.LOG);
        Validated.LOG.clear();
        rt.roundTrip(v);
        assertEquals(jdk, Validated.LOG);
        assertEquals(List.of("bbb", "a"), jdk);
    }
}
