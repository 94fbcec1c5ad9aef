package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Objects in custom data that the reading class leaves unread are still read, as the JDK's skipCustomData reads
 * them: they take their handles, so a later back reference finds them, and one whose class is missing carries its
 * ClassNotFoundException to that back reference (jtreg proxy/skipMissing: a proxy of an interface the reader lacks).
 */
class UnreadCustomDataTest {
    public interface Hidden {
    }

    /** Writes more than it reads: an object after its fields. */
    static final class Writer implements Serializable {
        private static final long serialVersionUID = 1L;
        String s = "s";
        transient Object extra;

        Writer(Object extra) {
            this.extra = extra;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(5);
            out.writeObject(extra);
            out.writeObject(List.of("x", extra));
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject(); // leaves the int and the objects unread
        }

        @Override
        public String toString() {
            return "Writer " + s;
        }
    }

    /** Writes two objects one after the other and reads only the first. */
    static final class ReadsHalf implements Serializable {
        private static final long serialVersionUID = 1L;
        transient Object extra;

        ReadsHalf(Object extra) {
            this.extra = extra;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeObject("first");
            out.writeObject(extra);
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            extra = in.readObject();
        }

        @Override
        public String toString() {
            return "ReadsHalf " + extra;
        }
    }

    static final class Handler implements java.lang.reflect.InvocationHandler, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Object invoke(Object proxy, java.lang.reflect.Method m, Object[] args) {
            return null;
        }
    }

    static final String HIDDEN = Hidden.class.getName();

    /** The JDK's reader that lacks Hidden. */
    static final class Lacking extends ObjectInputStream {
        Lacking(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            if (desc.getName().equals(HIDDEN)) {
                throw new ClassNotFoundException(HIDDEN);
            }
            return super.resolveClass(desc);
        }

        @Override
        protected Class<?> resolveProxyClass(String[] interfaces) throws IOException, ClassNotFoundException {
            for (String i : interfaces) {
                if (i.equals(HIDDEN)) {
                    throw new ClassNotFoundException(HIDDEN);
                }
            }
            return super.resolveProxyClass(interfaces);
        }
    }

    private static List<String> read(boolean fast, Object extra, int n) throws Exception {
        return read(fast, new Writer(extra), extra, n);
    }

    private static List<String> read(boolean fast, Object first, Object extra, int n) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = fast ? FastStreams.newWriter(b) : new ObjectOutputStream(b)) {
            out.writeObject(first);
            out.writeObject(extra);
            out.writeObject("end");
        }
        byte[] bytes = b.toByteArray();
        ClassResolver lacking = name -> {
            if (name.equals(HIDDEN)) {
                throw new ClassNotFoundException(HIDDEN);
            }
            return ClassResolver.latestUserDefinedLoader().resolve(name);
        };
        List<String> r = new ArrayList<>();
        try (ObjectInputStream in = fast
                ? FastStreams.newReader(new ByteArrayInputStream(bytes, 4, bytes.length - 4),
                        SerializerOptions.DEFAULTS.withResolver(lacking))
                : new Lacking(new ByteArrayInputStream(bytes))) {
            for (int i = 0; i < n; i++) {
                try {
                    Object o = in.readObject();
                    r.add(o instanceof Proxy ? "a proxy" : String.valueOf(o));
                } catch (Exception e) {
                    r.add(e.toString());
                }
            }
        }
        return r;
    }

    private static void expectAsJdk(Object extra, String... expected) throws Exception {
        List<String> jdk = read(false, extra, 3);
        assertEquals(List.of(expected), jdk, "the JDK");
        assertEquals(jdk, read(true, extra, 3), "remora.oos=fast");
    }

    @Test
    void aBackReferenceToAnUnreadObjectOfAMissingClassThrowsItsClassNotFoundException() throws Exception {
        Object proxy = Proxy.newProxyInstance(Hidden.class.getClassLoader(), new Class<?>[] {Hidden.class},
                new Handler());
        expectAsJdk(proxy, "Writer s", "java.lang.ClassNotFoundException: " + HIDDEN, "end");
    }

    @Test
    void anObjectLeftUnreadAfterOneReadIsReadToo() throws Exception {
        Object extra = new ArrayList<>(List.of("kept"));
        List<String> jdk = read(false, new ReadsHalf(extra), extra, 3);
        assertEquals(List.of("ReadsHalf first", "[kept]", "end"), jdk);
        assertEquals(jdk, read(true, new ReadsHalf(extra), extra, 3));
    }

    @Test
    void aBackReferenceToAnUnreadObjectFindsIt() throws Exception {
        expectAsJdk(new ArrayList<>(List.of("kept")), "Writer s", "[kept]", "end");
    }
}
