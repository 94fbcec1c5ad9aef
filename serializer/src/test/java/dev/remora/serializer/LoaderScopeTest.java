package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.IOException;
import java.io.Serializable;
import java.net.URL;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * One connection's reader resolving a type with the loaders each read names ({@link RemoraObjectInput#resolveWith}):
 * each loader's own class of a name, not the first one's; the JDK's classes shared; and a bound on the resolutions a
 * connection keeps per type.
 */
class LoaderScopeTest {
    /** A class every isolated loader below defines again. */
    public static final class Box implements Serializable {
        private static final long serialVersionUID = 1L;
        public int n;
    }

    /** A reader that resolves with the loader the test names, as RMI's resolves with the stub's or the export's. */
    static final class Scoped extends RemoraObjectInput {
        ClassLoader loader;
        int resolved;

        Scoped(ReadTypeTable t) throws IOException {
            super(t, SerializerOptions.DEFAULTS);
        }

        Object read(byte[] msg, ClassLoader l) throws Exception {
            loader = l;
            resolveWith(l, null);
            beginCall(msg, 0, msg.length);
            try {
                return readObject();
            } finally {
                endCall();
                loader = null; // keeps no loader between reads (UnloadableClassesTest collects them)
            }
        }

        @Override
        protected Class<?> resolveClassName(String name) throws ClassNotFoundException {
            resolved++;
            return Class.forName(name, false, loader);
        }
    }

    /** A loader of its own for this test's classes (not delegating to the application's). */
    static URLClassLoader isolated(String name) {
        URL classes = LoaderScopeTest.class.getProtectionDomain().getCodeSource().getLocation();
        return new URLClassLoader(name, new URL[] {classes}, ClassLoader.getPlatformClassLoader());
    }

    @Test
    void eachLoaderGetsItsOwnClassAndTheJdksAreShared() throws Exception {
        RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
        Scoped in = new Scoped(new ReadTypeTable());
        ClassLoader a = isolated("a");
        ClassLoader b = isolated("b");
        Box box = new Box();
        box.n = 7;
        for (int round = 0; round < 3; round++) {
            // each message read once, as a connection's: the type is described in the first only
            Object inA = in.read(RoundTrip.write(out, box), a);
            Object inB = in.read(RoundTrip.write(out, box), b);
            assertSame(a, inA.getClass().getClassLoader(), "round " + round);
            assertSame(b, inB.getClass().getClassLoader(), "round " + round);
            assertEquals(7, inB.getClass().getField("n").getInt(inB));
        }
        assertEquals(2, in.resolved, "resolved once per loader, not per read");
        int before = in.resolved;
        Object l1 = in.read(RoundTrip.write(out, new ArrayList<>(List.of("x", 1))), a);
        Object l2 = in.read(RoundTrip.write(out, new ArrayList<>(List.of("y", 2))), b);
        assertSame(ArrayList.class, l1.getClass());
        assertSame(ArrayList.class, l2.getClass());
        assertEquals(before + 2, in.resolved, "ArrayList and Integer resolved once, whatever the loader");
    }

    @Test
    void aConnectionKeepsABoundedNumberOfResolutionsPerType() throws Exception {
        RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
        Scoped in = new Scoped(new ReadTypeTable());
        int n = RemoteType.MAX_LOADER_SCOPES + 2;
        ClassLoader[] loaders = new ClassLoader[n];
        Class<?>[] seen = new Class<?>[n];
        for (int i = 0; i < n; i++) {
            loaders[i] = isolated("l" + i);
            seen[i] = in.read(RoundTrip.write(out, new Box()), loaders[i]).getClass();
            assertSame(loaders[i], seen[i].getClassLoader());
        }
        assertEquals(n, in.resolved);
        // the first resolution and the most recent others, MAX_LOADER_SCOPES in all, are kept: read without resolving
        assertSame(seen[0], in.read(RoundTrip.write(out, new Box()), loaders[0]).getClass());
        for (int i = n - RemoteType.MAX_LOADER_SCOPES + 1; i < n; i++) {
            assertSame(seen[i], in.read(RoundTrip.write(out, new Box()), loaders[i]).getClass());
        }
        assertEquals(n, in.resolved);
        // the oldest others were dropped: resolved again, to the same class
        assertSame(seen[1], in.read(RoundTrip.write(out, new Box()), loaders[1]).getClass());
        assertEquals(n + 1, in.resolved);
        assertNotSame(seen[0], seen[1]);
    }
}
