package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * A class missing on the reading side, as the JDK handles it: the object's data is read and dropped, whoever holds
 * it gets the ClassNotFoundException (at the end of the top-level read, or in a class's own readObject), and the
 * stream goes on: the next object reads normally, and a back reference to the missing object throws again. Each
 * case compares, read by read, what the JDK's reader gives with what Remora's gives.
 */
class MissingClassTest {

    static final class Missing implements Serializable {
        private static final long serialVersionUID = 1L;
        int x = 7;
        Object inner = new Ok("inside");
    }

    static final class Ok implements Serializable {
        private static final long serialVersionUID = 1L;
        final String s;

        Ok(String s) {
            this.s = s;
        }

        @Override
        public String toString() {
            return "Ok(" + s + ")";
        }
    }

    static final class Holder implements Serializable {
        private static final long serialVersionUID = 1L;
        Object f;
        int after = 5;

        Holder(Object f) {
            this.f = f;
        }

        @Override
        public String toString() {
            return "Holder(" + f + "," + after + ")";
        }
    }

    /** Reads its field itself and carries on when it is of a missing class. */
    static final class Tolerant implements Serializable {
        private static final long serialVersionUID = 1L;
        transient Object f;
        transient String note;

        Tolerant(Object f) {
            this.f = f;
        }

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeObject(f);
            out.writeUTF("tail");
        }

        private void readObject(ObjectInputStream in) throws IOException {
            try {
                f = in.readObject();
            } catch (ClassNotFoundException e) {
                f = "caught " + e.getMessage();
            }
            note = in.readUTF();
        }

        @Override
        public String toString() {
            return "Tolerant(" + f + "," + note + ")";
        }
    }

    /** Its default fields hold the missing object: defaultReadObject throws, as the JDK's does. */
    static final class DefaultTolerant implements Serializable {
        private static final long serialVersionUID = 1L;
        Object f;
        transient String note = "";

        DefaultTolerant(Object f) {
            this.f = f;
        }

        private void readObject(ObjectInputStream in) throws IOException {
            try {
                in.defaultReadObject();
                note = "read";
            } catch (ClassNotFoundException e) {
                note = "caught";
            }
        }

        @Override
        public String toString() {
            return "DefaultTolerant(" + note + ")";
        }
    }

    /** Reads its field with readFields: the holder learns of the missing class on get (jtreg GetField/ReadFieldsCNF). */
    static final class FieldsHolder implements Serializable {
        private static final long serialVersionUID = 1L;
        Object f;
        transient String note = "";

        FieldsHolder(Object f) {
            this.f = f;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            ObjectInputStream.GetField g = in.readFields();
            try {
                f = g.get("f", "default");
                note = "got " + f;
            } catch (Exception e) { // ClassNotFoundException on JDK 25 and later
                note = "caught " + e;
            }
        }

        @Override
        public String toString() {
            return "FieldsHolder(" + note + ")";
        }
    }

    /** A field of an interface type whose value is read through a serial proxy (Map.of's CollSer). */
    static final class MapHolder implements Serializable {
        private static final long serialVersionUID = 1L;
        java.util.Map<String, Object> arg;
        int after = 3;

        MapHolder(java.util.Map<String, Object> arg) {
            this.arg = arg;
        }

        @Override
        public String toString() {
            return "MapHolder(" + arg + "," + after + ")";
        }
    }

    enum Color { RED }

    private static final Set<String> GONE = Set.of(Missing.class.getName(), Color.class.getName(),
            Missing[].class.getName());

    private static String outcome(ObjectInputStream in) throws IOException {
        try {
            Object o = in.readObject();
            if (o instanceof ObjectStreamClass) {
                ObjectStreamClass d = (ObjectStreamClass) o;
                return "descriptor " + d + ", class here: " + (d.forClass() != null) + ", fields "
                        + Arrays.toString(d.getFields());
            }
            return o instanceof Object[] ? Arrays.deepToString((Object[]) o) : String.valueOf(o);
        } catch (ClassNotFoundException e) {
            return "ClassNotFoundException";
        } catch (ClassCastException e) { // JDK 17 and 21 check a holder's fields even when a value's class is missing
            return "ClassCastException";
        }
    }

    static List<String> jdk(Object... objs) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            for (Object o : objs) {
                out.writeObject(o);
            }
        }
        List<String> r = new ArrayList<>();
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray())) {
            @Override
            protected Class<?> resolveClass(ObjectStreamClass d) throws IOException, ClassNotFoundException {
                if (GONE.contains(d.getName())) {
                    throw new ClassNotFoundException(d.getName());
                }
                return super.resolveClass(d);
            }
        }) {
            for (int i = 0; i < objs.length; i++) {
                r.add(outcome(in));
            }
        }
        return r;
    }

    static List<String> remora(Object... objs) throws Exception {
        ClassResolver dflt = ClassResolver.of(MissingClassTest.class.getClassLoader());
        SerializerOptions o = SerializerOptions.DEFAULTS.withResolver(name -> {
            if (GONE.contains(name)) {
                throw new ClassNotFoundException(name);
            }
            return dflt.resolve(name);
        });
        RoundTrip rt = new RoundTrip(o);
        byte[] m = rt.write(objs);
        rt.in.beginCall(m, 0, m.length);
        List<String> r = new ArrayList<>();
        for (int i = 0; i < objs.length; i++) {
            r.add(outcome(rt.in));
        }
        rt.in.endCall();
        return r;
    }

    static void same(Object... objs) throws Exception {
        List<String> expected = jdk(objs);
        assertEquals(expected, remora(objs), () -> Arrays.deepToString(objs));
    }

    @Test
    void theStreamGoesOnPastAnObjectOfAMissingClass() throws Exception {
        Missing m = new Missing();
        same(m, new Ok("next"), m, "last");
        same(new Holder(m), new Ok("next"), new Holder(new Ok("fine")));
        same(new Object[] {new Ok("a"), m, new Ok("b")}, "next");
        same(new Ok("first"), Color.RED, Color.RED, new Ok("after enum"));
        same(new Missing[] {m, null}, "after array", Missing.class, "after class");
    }

    @Test
    void aClassOwnReadObjectCanCatchItAndTheTopLevelReadStillThrows() throws Exception {
        Missing m = new Missing();
        same(new Tolerant(m), new Tolerant(new Ok("fine")), new Holder(new Tolerant(m)), "end");
        same(new DefaultTolerant(m), new DefaultTolerant(new Ok("fine")), "end");
    }

    /** An ObjectStreamClass written as an object reads back as one, without its class too (jtreg unresolvedClassDesc). */
    @Test
    void aClassDescriptorIsAValueEvenWhenItsClassIsMissing() throws Exception {
        ObjectStreamClass gone = ObjectStreamClass.lookup(Missing.class);
        ObjectStreamClass here = ObjectStreamClass.lookup(Ok.class);
        same(gone, new Object[] {gone}, new Missing(), new Object[] {new Missing()}, here, new Object[] {here}, "end");
        // shared as the JDK shares it: the array holds the very descriptor read first
        RoundTrip rt = new RoundTrip(SerializerOptions.DEFAULTS);
        byte[] m = rt.write(here, new Object[] {here});
        rt.in.beginCall(m, 0, m.length);
        Object first = rt.in.readObject();
        Object[] second = (Object[]) rt.in.readObject();
        rt.in.endCall();
        assertSame(first, second[0]);
        assertSame(Ok.class, ((ObjectStreamClass) first).forClass());
    }

    @Test
    void readFieldsGivesTheHolderTheException() throws Exception {
        Missing m = new Missing();
        same(new FieldsHolder(m), "end");
        same(new FieldsHolder(new Ok("fine")), "end");
        same(new java.util.Vector<>(List.of(m)), "end");
    }

    /**
     * A serial proxy whose content is missing is not resolved. On JDK 23 and later its holder's fields are not set
     * and the holder carries the ClassNotFoundException (JDK-8331224, jtreg serialProxy/SerialProxyClassNotFound); on
     * 17 and 21 the unresolved proxy fails the Map field's type check. Remora does as the JDK it runs on.
     */
    @Test
    void aProxyOfMissingContentLeavesItsHoldersFieldsUnset() throws Exception {
        Missing m = new Missing();
        same(new MapHolder(java.util.Map.of("aaa", m)), new MapHolder(java.util.Map.of("b", new Ok("x"))), "end");
        same(new Holder(new MapHolder(java.util.Map.of("aaa", m))), "end");
    }

    @Test
    void listsAndBackReferencesCarryTheException() throws Exception {
        Missing m = new Missing();
        same(new ArrayList<>(List.of(new Ok("x"), m)), new Holder(m), new ArrayList<>(List.of(new Ok("y"))));
    }
}
