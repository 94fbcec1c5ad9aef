package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.lang.ref.WeakReference;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The facts of a remote method ({@link Marshal#info}): one per method, found again by any of its instances. */
class MarshalTest {

    /** A remote interface of a class loader of its own (see {@link #theFactsKeepNoClassAlive}). */
    public interface Probe {
        int twice(int x, long y);
    }

    @Test
    void equalMethodsShareTheirFactsWhicheverInstanceAsks() throws Exception {
        Method a = Probe.class.getMethod("twice", int.class, long.class);
        Method b = Probe.class.getMethod("twice", int.class, long.class);
        assertNotSame(a, b, "getMethod makes a new instance each time");
        Marshal.MethodInfo first = Marshal.info(a);
        for (int i = 0; i < 3; i++) {
            assertSame(first, Marshal.info(a));
            assertSame(first, Marshal.info(b));
        }
        assertTrue(Marshal.cached(a) && Marshal.cached(b), "each instance is found again without the class's map");
        assertArrayEquals(new Class<?>[] {int.class, long.class}, first.params);
        assertEquals(int.class, first.result);
        assertTrue(first.rawArgs);
    }

    /** More methods than the cache has slots, asked in turn and in another order: each gets its own facts. */
    @Test
    void everyMethodGetsItsOwnFactsWhenMoreShareTheCache() {
        List<Method> all = new ArrayList<>();
        for (Class<?> c : new Class<?>[] {String.class, StringBuilder.class, Arrays.class, Collections.class,
                Math.class, Character.class, Integer.class, Long.class}) {
            all.addAll(Arrays.asList(c.getMethods()));
        }
        assertTrue(all.size() > 600, all.size() + " methods");
        for (int round = 0; round < 3; round++) {
            for (Method m : all) {
                Marshal.MethodInfo i = Marshal.info(m);
                assertEquals(m, i.method);
                assertArrayEquals(m.getParameterTypes(), i.params, m.toString());
                assertEquals(m.getReturnType(), i.result, m.toString());
            }
            Collections.reverse(all);
        }
    }

    /** The cache is weak: a method's facts looked up do not keep its class, or the class's loader, alive. */
    @Test
    void theFactsKeepNoClassAlive() throws Exception {
        WeakReference<ClassLoader> loader = lookUpInALoaderOfItsOwn();
        for (int i = 0; i < 50 && loader.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        assertNull(loader.get(), "the class loader of a method whose facts were looked up was not collected");
    }

    private static WeakReference<ClassLoader> lookUpInALoaderOfItsOwn() throws Exception {
        byte[] bytes;
        try (InputStream in = MarshalTest.class.getResourceAsStream("MarshalTest$Probe.class")) {
            bytes = in.readAllBytes();
        }
        ClassLoader own = new ClassLoader(null) {
            @Override
            protected Class<?> findClass(String name) throws ClassNotFoundException {
                if (!name.equals(Probe.class.getName())) {
                    throw new ClassNotFoundException(name);
                }
                return defineClass(name, bytes, 0, bytes.length);
            }
        };
        Class<?> c = own.loadClass(Probe.class.getName());
        assertNotSame(Probe.class, c);
        Method m = c.getMethod("twice", int.class, long.class);
        assertSame(Marshal.info(m), Marshal.info(m));
        return new WeakReference<>(own);
    }
}
