package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.lang.reflect.Proxy;
import java.math.BigDecimal;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;
import org.junit.jupiter.api.Test;

/**
 * A filter sees the same sequence of checks from Remora's reader as from the JDK's for the same objects: the same
 * classes, array lengths, depths and reference counts, call after call (only the stream byte counts differ, Remora's
 * format being another). The cases include those of the JDK's own tests (jtreg FilterUROTest, FilterUSRTest,
 * SerialFilterTest), repeated classes (descriptor back references), hierarchies, arrays read by JDK classes'
 * readObject, and several objects and calls on one connection (whose types are sent only once).
 */
class FilterSequenceTest {

    /** Records every check as "class arrayLength depth refs". */
    static final class Recorder implements ObjectInputFilter {
        final List<String> calls = new ArrayList<>();

        @Override
        public Status checkInput(FilterInfo i) {
            Class<?> c = i.serialClass();
            String name = c == null ? "-" : Proxy.isProxyClass(c) ? "$Proxy"
                    : c.getName().contains("$$Lambda") ? "$Lambda" : c.getName();
            calls.add(name + " " + i.arrayLength() + " d" + i.depth() + " r" + i.references());
            return Status.UNDECIDED;
        }
    }

    static List<String> jdk(Object... objs) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            for (Object o : objs) {
                out.writeObject(o);
            }
        }
        Recorder r = new Recorder();
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray()))) {
            in.setObjectInputFilter(r);
            for (int i = 0; i < objs.length; i++) {
                in.readObject();
            }
        }
        return r.calls;
    }

    /** The connection's stream filter, set once, records into the current recorder. */
    static final class Current implements ObjectInputFilter {
        Recorder recorder;

        @Override
        public Status checkInput(FilterInfo i) {
            return recorder.checkInput(i);
        }
    }

    static List<String> remora(RoundTrip rt, Current filter, Object... objs) throws Exception {
        byte[] m = rt.write(objs);
        filter.recorder = new Recorder();
        rt.read(m, objs.length);
        return filter.recorder.calls;
    }

    static void same(Object... objs) throws Exception {
        List<String> expected = jdk(objs);
        RoundTrip rt = new RoundTrip();
        Current filter = new Current();
        rt.in.setStreamFilter(filter);
        assertEquals(expected, remora(rt, filter, objs), () -> "first call: " + Arrays.deepToString(objs));
        // the second call on the connection: types are not sent again, the filter sees the same
        assertEquals(expected, remora(rt, filter, objs), "second call on one connection");
    }

    static final class XX implements Serializable {
        private static final long serialVersionUID = 1L;
        final Object obj;

        XX(Object obj) {
            this.obj = obj;
        }
    }

    static class A implements Serializable {
        private static final long serialVersionUID = 1L;
        int a = 1;
    }

    static class B extends A {
        private static final long serialVersionUID = 1L;
        Object b;
    }

    static class C extends B {
        private static final long serialVersionUID = 1L;
    }

    static class NotSer {
        int n;
    }

    static class Mid extends NotSer implements Serializable {
        private static final long serialVersionUID = 1L;
        Object m;
    }

    static final class Leaf extends Mid {
        private static final long serialVersionUID = 1L;
        Object l;
    }

    enum Color { RED, GREEN }

    record Pair(Object a, Object b) implements Serializable {
    }

    @Test
    void theJdksRmiFilterCountsCases() throws Exception {
        same("SimpleString");
        same(new XX("now is the time"));
        same(new XX(new String[3]));
        same(new XX(new Long[4]));
    }

    @Test
    void serialFilterTestCases() throws Exception {
        Object[] objArray = new Object[7];
        objArray[6] = objArray;
        same(objArray);
        same(Object[].class);
        same(new LongAdder());
        same(new byte[14]);
        same(new C());
        same(Proxy.newProxyInstance(null, new Class<?>[] {Runnable.class}, (p, m, a) -> null).getClass());
        same(deepHashSet(10));
        Object[] deep = new Object[1];
        for (int i = 1; i < 6; i++) {
            deep = new Object[] {deep};
        }
        same((Object) deep);
        Object[] refs = new Object[10];
        Arrays.fill(refs, Integer.valueOf(0));
        same((Object) refs);
        // a serialized lambda: its capturing class is a Class value, its strings are objects (two of them shared)
        same((Runnable & Serializable) FilterSequenceTest::noop);
        int captured = 3;
        same((Runnable & Serializable) () -> noop(captured));
    }

    static void noop() {
    }

    static void noop(int i) {
    }

    @Test
    void repeatedClassesHierarchiesAndJdkClassesReadObject() throws Exception {
        List<Object> l = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            B b = new B();
            b.b = new A();
            l.add(b);
            l.add(new C());
        }
        same(l);
        Leaf leaf = new Leaf();
        leaf.m = new Mid();
        leaf.l = Color.GREEN;
        same(leaf, Color.RED, Color.GREEN, new Pair(1, new Pair("x", null)));
        HashMap<String, Object> m = new HashMap<>();
        m.put("a", new ArrayDeque<>(List.of(1, 2, 3)));
        m.put("b", new LinkedList<>(List.of(4L, 5L)));
        m.put("c", new TreeMap<>(java.util.Map.of("k", new BigDecimal("1.5"))));
        m.put("d", TimeUnit.SECONDS);
        m.put("e", new int[][] {{1}, null, {}});
        same(m, m, new XX(m));
        same(new ArrayList<>(), new XX(new ArrayList<>(List.of("x"))), new ArrayList<>(List.of(new ArrayList<>())));
    }

    @Test
    void aSecondObjectOfAStreamSeesDescriptorsAsBackReferences() throws Exception {
        same(new XX(1), new XX(2L), new B(), new C(), new XX(new XX(new A())));
    }

    static HashSet<Object> deepHashSet(int depth) {
        HashSet<Object> hashSet = new HashSet<>();
        HashSet<Object> s1 = hashSet;
        HashSet<Object> s2 = new HashSet<>();
        for (int i = 0; i < depth; i++) {
            HashSet<Object> t1 = new HashSet<>();
            HashSet<Object> t2 = new HashSet<>();
            t1.add("by Jimminy");
            s1.add(t1);
            s1.add(t2);
            s2.add(t1);
            s2.add(t2);
            s1 = t1;
            s2 = t2;
        }
        return hashSet;
    }

    /** Guards against a recorder that sees nothing: the JDK's sequence for a small case, spelled out. */
    @Test
    void theRecorderSeesTheJdksChecks() throws Exception {
        assertEquals(List.of(XX.class.getName() + " -1 d1 r1", "[Ljava.lang.String; -1 d2 r3",
                "[Ljava.lang.String; 3 d2 r4"), jdk(new XX(new String[3])));
    }
}
