package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

/**
 * The JDK binds a superclass's stream data to the local superclass of the same name, whatever class the stream's
 * resolveClass gave for that descriptor (ObjectStreamClass.getClassDataLayout0 matches by name): a reader whose
 * resolveClass takes the superclass from another loader than the subclass still gets the superclass's fields (jtreg
 * superclassDataLoss/SuperclassDataLossTest, which only runs into this in jtreg's agent VM, where its jars' classes
 * are not on the class path).
 */
class SuperclassMatchTest {
    public static class Base implements Serializable {
        private static final long serialVersionUID = 1L;
        protected final int i;

        protected Base(int i) {
            this.i = i;
        }
    }

    public static class Sub extends Base implements Supplier<Integer> {
        private static final long serialVersionUID = 1L;

        public Sub() {
            super(0xDEADBEEF);
        }

        @Override
        public Integer get() {
            return i;
        }
    }

    /** A loader that defines Base and Sub itself, from the test's class files. */
    static ClassLoader childFirst() {
        return new CodecTest.ChildFirst(SuperclassMatchTest.class.getClassLoader(),
                Set.of(Base.class.getName(), Sub.class.getName()));
    }

    /** Sub from ldr1, Base from ldr2 (not Sub's superclass), or a ClassNotFoundException for Base. */
    static Class<?> mixed(String name, ClassLoader ldr1, ClassLoader ldr2, boolean baseMissing)
            throws ClassNotFoundException {
        if (name.equals(Sub.class.getName())) {
            return Class.forName(name, true, ldr1);
        }
        if (name.equals(Base.class.getName())) {
            if (baseMissing) {
                throw new ClassNotFoundException(name);
            }
            return Class.forName(name, true, ldr2);
        }
        return null;
    }

    static final class MixedJdk extends ObjectInputStream {
        final ClassLoader ldr1;
        final ClassLoader ldr2;
        final boolean baseMissing;

        MixedJdk(InputStream in, ClassLoader ldr1, ClassLoader ldr2, boolean baseMissing) throws IOException {
            super(in);
            this.ldr1 = ldr1;
            this.ldr2 = ldr2;
            this.baseMissing = baseMissing;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            Class<?> c = mixed(desc.getName(), ldr1, ldr2, baseMissing);
            return c != null ? c : super.resolveClass(desc);
        }
    }

    static final class MixedHost implements StreamHost {
        final ClassLoader ldr1;
        final ClassLoader ldr2;
        final boolean baseMissing;

        MixedHost(ClassLoader ldr1, ClassLoader ldr2, boolean baseMissing) {
            this.ldr1 = ldr1;
            this.ldr2 = ldr2;
            this.baseMissing = baseMissing;
        }

        @Override
        public Class<?> resolveClass(String name, long serialVersionUID) throws ClassNotFoundException {
            Class<?> c = mixed(name, ldr1, ldr2, baseMissing);
            return c != null ? c : ClassResolver.latestUserDefinedLoader().resolve(name);
        }

        @Override
        public boolean resolvesProxyClasses() {
            return false;
        }

        @Override
        public Class<?> resolveProxyClass(String[] interfaces) {
            throw new UnsupportedOperationException();
        }

        @Override
        public boolean resolvesObjects() {
            return false;
        }

        @Override
        public Object resolveObject(Object obj) {
            return obj;
        }
    }

    private static Object roundTrip(boolean fast, boolean baseMissing) throws Exception {
        ClassLoader ldr1 = childFirst();
        ClassLoader ldr2 = childFirst();
        Object a = ldr1.loadClass(Sub.class.getName()).getConstructor().newInstance();
        assertNotSame(Sub.class, a.getClass());
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = fast ? FastStreams.newWriter(b) : new ObjectOutputStream(b)) {
            out.writeObject(a);
        }
        byte[] bytes = b.toByteArray();
        try (ObjectInputStream in = fast
                ? FastStreams.newReader(new ByteArrayInputStream(bytes, 4, bytes.length - 4),
                        SerializerOptions.DEFAULTS, new MixedHost(ldr1, ldr2, baseMissing))
                : new MixedJdk(new ByteArrayInputStream(bytes), ldr1, ldr2, baseMissing)) {
            Object back = in.readObject();
            assertSame(a.getClass(), back.getClass());
            return back;
        }
    }

    @SuppressWarnings("unchecked")
    private static int value(Object o) {
        return ((Supplier<Integer>) o).get();
    }

    @Test
    void superclassResolvedFromAnotherLoaderKeepsItsData() throws Exception {
        assertEquals(0xDEADBEEF, value(roundTrip(false, false))); // the JDK
        assertEquals(0xDEADBEEF, value(roundTrip(true, false)));
    }

    @Test
    void superclassThatDoesNotResolveStillBindsByName() throws Exception {
        assertEquals(0xDEADBEEF, value(roundTrip(false, true))); // the JDK
        assertEquals(0xDEADBEEF, value(roundTrip(true, true)));
    }
}
