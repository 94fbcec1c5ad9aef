package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidClassException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * An application's ObjectInputStream subclass that overrides readClassDescriptor: the JDK calls it for every class
 * descriptor it reads, before resolveClass, and resolves the class the returned descriptor names (an application
 * renames classes there); a ClassNotFoundException it throws reaches the caller as an InvalidClassException with
 * that cause (jtreg classDescHooks/CNFException). Remora's reader calls the host where the JDK would.
 */
class ClassDescriptorHookTest {
    public static final class Old implements Serializable {
        private static final long serialVersionUID = 7L;
        int value = 42;
    }

    public static final class Renamed implements Serializable {
        private static final long serialVersionUID = 7L;
        int value;

        @Override
        public String toString() {
            return "Renamed " + value;
        }
    }

    interface Hook {
        ObjectStreamClass read(ObjectStreamClass fromStream) throws ClassNotFoundException;
    }

    static final Hook THROWS = d -> {
        throw new ClassNotFoundException("foobar");
    };

    static final Hook RENAMES = d -> d.getName().equals(Old.class.getName()) ? ObjectStreamClass.lookup(Renamed.class)
            : d;

    /** The JDK's reader with the hook: the JDK reads the descriptor, the hook decides. */
    static final class JdkHooked extends ObjectInputStream {
        final Hook hook;
        final List<String> seen = new ArrayList<>();

        JdkHooked(InputStream in, Hook hook) throws IOException {
            super(in);
            this.hook = hook;
        }

        @Override
        protected ObjectStreamClass readClassDescriptor() throws IOException, ClassNotFoundException {
            ObjectStreamClass d = super.readClassDescriptor();
            seen.add(d.getName());
            return hook.read(d);
        }
    }

    /** What the agent's SubclassHost does for such a subclass, with the hook in place of the override. */
    static final class Host implements StreamHost {
        final Hook hook;
        final List<String> seen = new ArrayList<>();
        ObjectStreamClass beingRead;

        Host(Hook hook) {
            this.hook = hook;
        }

        @Override
        public Class<?> resolveClass(String name, long serialVersionUID) throws ClassNotFoundException {
            return ClassResolver.latestUserDefinedLoader().resolve(name);
        }

        @Override
        public boolean readsClassDescriptors() {
            return true;
        }

        @Override
        public ObjectStreamClass readClassDescriptor(String name, long serialVersionUID)
                throws ClassNotFoundException {
            seen.add(name);
            // the test cannot make a descriptor of any name, as the agent does: the local class's stands for it
            beingRead = ObjectStreamClass.lookupAny(Class.forName(name));
            try {
                return hook.read(beingRead);
            } finally {
                beingRead = null;
            }
        }

        @Override
        public ObjectStreamClass classDescriptorBeingRead() {
            return beingRead;
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

    private static byte[] write(boolean fast, Object o) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = fast ? FastStreams.newWriter(b) : new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        return b.toByteArray();
    }

    private static Object readJdk(Object o, Hook hook, List<String> seen) throws Exception {
        try (JdkHooked in = new JdkHooked(new ByteArrayInputStream(write(false, o)), hook)) {
            try {
                return in.readObject();
            } finally {
                seen.addAll(in.seen);
            }
        }
    }

    private static Object readFast(Object o, Hook hook, List<String> seen) throws Exception {
        byte[] b = write(true, o);
        Host host = new Host(hook);
        try (ObjectInputStream in = FastStreams.newReader(new ByteArrayInputStream(b, 4, b.length - 4),
                SerializerOptions.DEFAULTS, host)) {
            try {
                return in.readObject();
            } finally {
                seen.addAll(host.seen);
            }
        }
    }

    @Test
    void aClassNotFoundExceptionFromTheHookIsAnInvalidClassException() throws Exception {
        for (boolean fast : new boolean[] {false, true}) {
            InvalidClassException e = assertThrows(InvalidClassException.class,
                    () -> {
                        if (fast) {
                            readFast(5, THROWS, new ArrayList<>());
                        } else {
                            readJdk(5, THROWS, new ArrayList<>());
                        }
                    });
            assertInstanceOf(ClassNotFoundException.class, e.getCause(), "fast " + fast);
            assertEquals("failed to read class descriptor", e.getMessage());
        }
    }

    @Test
    void theHookRenamesAClass() throws Exception {
        List<String> jdkSeen = new ArrayList<>();
        List<String> fastSeen = new ArrayList<>();
        assertEquals("Renamed 42", String.valueOf(readJdk(new Old(), RENAMES, jdkSeen)));
        assertEquals("Renamed 42", String.valueOf(readFast(new Old(), RENAMES, fastSeen)));
        assertEquals(jdkSeen, fastSeen);
    }

    @Test
    void theHookSeesEveryDescriptorTheJdkReads() throws Exception {
        List<String> jdkSeen = new ArrayList<>();
        List<String> fastSeen = new ArrayList<>();
        assertEquals(5, readJdk(5, d -> d, jdkSeen));
        assertEquals(5, readFast(5, d -> d, fastSeen));
        assertEquals(List.of("java.lang.Integer", "java.lang.Number"), jdkSeen);
        assertEquals(jdkSeen, fastSeen);
    }

    static void noop() {
    }

    @Test
    void aLambdasCapturingClassIsADescriptorToo() throws Exception {
        Object lambda = (Runnable & Serializable) ClassDescriptorHookTest::noop;
        List<String> jdkSeen = new ArrayList<>();
        List<String> fastSeen = new ArrayList<>();
        ((Runnable) readJdk(lambda, d -> d, jdkSeen)).run();
        ((Runnable) readFast(lambda, d -> d, fastSeen)).run();
        assertEquals(List.of("java.lang.invoke.SerializedLambda", "[Ljava.lang.Object;",
                ClassDescriptorHookTest.class.getName()), jdkSeen);
        assertEquals(jdkSeen, fastSeen);
    }
}
