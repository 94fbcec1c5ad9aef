package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.io.Serializable;
import org.junit.jupiter.api.Test;

/**
 * Fields that serialPersistentFields declares unshared are written with writeUnshared and read with readUnshared by
 * default serialization and by putFields/readFields, as in the JDK (jtreg unshared/Write).
 */
class UnsharedFieldsTest {
    static final class Foo implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("shared1", String.class),
            new ObjectStreamField("shared2", String.class, false),
            new ObjectStreamField("unshared1", String.class, true),
            new ObjectStreamField("unshared2", String.class, true)};
        String shared1;
        String shared2;
        String unshared1;
        String unshared2;

        Foo() {
            shared1 = shared2 = unshared1 = unshared2 = new String("foo");
        }
    }

    /** The same fields through putFields and readFields. */
    static final class Bar implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("a", String.class),
            new ObjectStreamField("b", String.class, true),
            new ObjectStreamField("c", String.class)};
        transient String a;
        transient String b;
        transient String c;

        Bar() {
            a = b = c = new String("bar");
        }

        private void writeObject(ObjectOutputStream out) throws java.io.IOException {
            ObjectOutputStream.PutField f = out.putFields();
            f.put("a", a);
            f.put("b", b);
            f.put("c", c);
            out.writeFields();
        }

        private void readObject(ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            ObjectInputStream.GetField f = in.readFields();
            a = (String) f.get("a", null);
            b = (String) f.get("b", null);
            c = (String) f.get("c", null);
        }
    }

    private static String sharing(Object o) {
        if (o instanceof Foo) {
            Foo f = (Foo) o;
            return "shared1==shared2 " + (f.shared1 == f.shared2) + ", shared1==unshared1 " + (f.shared1 == f.unshared1)
                    + ", unshared1==unshared2 " + (f.unshared1 == f.unshared2) + ", shared2==unshared2 "
                    + (f.shared2 == f.unshared2) + ", values " + f.shared1 + f.unshared2;
        }
        Bar b = (Bar) o;
        return "a==b " + (b.a == b.b) + ", a==c " + (b.a == b.c) + ", b==c " + (b.b == b.c) + ", values " + b.a + b.b;
    }

    @Test
    void unsharedFieldsAreReadAsTheJdkReadsThem() throws Exception {
        for (Object o : new Object[] {new Foo(), new Bar()}) {
            Object jdk;
            try (ObjectInputStream in = new ObjectInputStream(
                    new java.io.ByteArrayInputStream(RoundTrip.jdkBytes(o)))) {
                jdk = in.readObject();
            }
            Object ours = new RoundTrip(SerializerOptions.DEFAULTS).roundTrip(o);
            assertEquals(sharing(jdk), sharing(ours));
        }
        assertEquals("shared1==shared2 true, shared1==unshared1 false, unshared1==unshared2 false, shared2==unshared2"
                + " false, values foofoo", sharing(new RoundTrip(SerializerOptions.DEFAULTS).roundTrip(new Foo())));
    }
}
