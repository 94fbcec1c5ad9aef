package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.InputStream;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which path a class takes: generated codec, Unsafe (JDK classes, 17-23) or the JDK 24+ default-field handles. */
class CodecTest {

    @Test
    void exactArrayListHasItsOwnEncoding() throws Exception {
        assertEquals(ClassInfo.SPECIAL, ClassInfo.of(java.util.ArrayList.class).kind);
        assertEquals(ClassInfo.PLAIN, ClassInfo.of(java.util.LinkedList.class).kind);
        java.util.ArrayList<Object> self = new java.util.ArrayList<>();
        self.add("a");
        self.add(self);
        @SuppressWarnings("unchecked")
        java.util.List<Object> back = (java.util.List<Object>) new RoundTrip().roundTrip(self);
        assertSame(back, back.get(1));
        assertEquals("a", back.get(0));
    }

    @Test
    void applicationClassesGetAGeneratedCodec() {
        ClassInfo ci = ClassInfo.of(Fixtures.Int32.class);
        assertTrue(ci.fast, "32-int class is on the fast path");
        assertNotNull(ci.slots[0].codec);
        if (FieldAccess.UNSAFE == null || Slot.CODEGEN_AFTER == 0) {
            assertTrue(ci.slots[0].codec.getClass().isHidden()); // else LoopCodecTest follows it to its generated codec
        }
        assertEquals(Slot.ACCESS_LOOKUP, ci.slots[0].access);
        assertEquals(128, ci.slots[0].primBytes);
    }

    @Test
    void jdkClassesUseUnsafeBefore24AndJdkDefaultHandlesFrom24() {
        Slot s = ClassInfo.of(java.util.HashMap.class).slots[0];
        int expected = JdkSupport.FEATURE < 24 ? Slot.ACCESS_UNSAFE : Slot.ACCESS_JDK_DEFAULT;
        assertEquals(expected, s.access);
        assertNotNull(s.writeObject);
        assertTrue(SerializerStats.summary().contains("codecs generated="));
    }

    /**
     * A child-first loader that defines the named classes itself, from its parent's class files: the classes Remora sees
     * are not the test's (LoaderProbe here; other tests name theirs).
     */
    static final class ChildFirst extends ClassLoader {
        private final java.util.Set<String> own;

        ChildFirst(ClassLoader parent) {
            this(parent, java.util.Set.of(LoaderProbe.class.getName()));
        }

        ChildFirst(ClassLoader parent, java.util.Set<String> own) {
            super(parent);
            this.own = own;
        }

        @Override
        protected Class<?> loadClass(String name, boolean resolve) throws ClassNotFoundException {
            if (!own.contains(name)) {
                return super.loadClass(name, resolve);
            }
            synchronized (getClassLoadingLock(name)) {
                Class<?> c = findLoadedClass(name);
                if (c == null) {
                    try (InputStream in = getParent().getResourceAsStream(name.replace('.', '/') + ".class")) {
                        byte[] b = in.readAllBytes();
                        c = defineClass(name, b, 0, b.length);
                    } catch (IOException e) {
                        throw new ClassNotFoundException(name, e);
                    }
                }
                return c;
            }
        }
    }

    @Test
    void privateFinalFieldsOfAClassFromAnotherLoader() throws Exception {
        ChildFirst loader = new ChildFirst(getClass().getClassLoader());
        Class<?> c = loader.loadClass(LoaderProbe.class.getName());
        assertNotSame(LoaderProbe.class, c);
        Object probe = c.getConstructor(int.class, String.class).newInstance(21, "child");
        RoundTrip rt = new RoundTrip(SerializerOptions.DEFAULTS.withResolver(ClassResolver.of(loader)));
        Object back = rt.roundTrip(probe);
        assertSame(c, back.getClass());
        assertEquals("21/child/42", back.toString());
        assertTrue(ClassInfo.of(c).fast);
    }
}
