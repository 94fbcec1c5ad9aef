package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A filter a class's readObject takes from the stream ({@code getObjectInputFilter()}) and uses for a stream of its
 * own, as {@code java.rmi.MarshalledObject} does for {@code get()}: with a reader of Remora's it must decide as the
 * JDK's stream's filter does, during the read and after it. (The JMX connector unwraps every operation's parameters
 * that way, under JDK 25's default filter of the JMX agent: {@code Object[]} of an operation's arguments was refused.)
 */
class CapturedFilterTest {
    private static final String PATTERN = "java.lang.*;dev.remora.serializer.CapturedFilterTest$Wrapped;!*";

    /** Keeps the filter of the stream it came from, and unwraps its bytes with it: now or later. */
    static final class Wrapped implements Serializable {
        private static final long serialVersionUID = 1L;
        final byte[] bytes;
        final boolean unwrapWhileRead;
        transient ObjectInputFilter filter;
        transient String whileRead;

        Wrapped(Object o, boolean unwrapWhileRead) throws IOException {
            this.bytes = RoundTrip.jdkBytes(o);
            this.unwrapWhileRead = unwrapWhileRead;
        }

        private void readObject(ObjectInputStream s) throws IOException, ClassNotFoundException {
            s.defaultReadObject();
            filter = s.getObjectInputFilter();
            if (unwrapWhileRead) {
                whileRead = unwrap();
            }
        }

        String unwrap() {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes))) {
                in.setObjectInputFilter(filter);
                Object o = in.readObject();
                return o.getClass().getSimpleName() + (o instanceof Object[] ? Arrays.toString((Object[]) o)
                        : o instanceof byte[] ? "(" + ((byte[]) o).length + ")" : "");
            } catch (Exception e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
    }

    static final class Refused implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    private static Wrapped viaJdk(Wrapped w) throws Exception {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(RoundTrip.jdkBytes(w)))) {
            in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(PATTERN));
            return (Wrapped) in.readObject();
        }
    }

    /** Through a reader as Remora's RMI path makes it: arrays bounded by the message, the message not at offset 0. */
    private static Wrapped viaRemora(Wrapped w, RemoraObjectInput in) throws Exception {
        RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
        out.beginCall();
        out.writeObject(w);
        out.finishCall();
        byte[] framed = new byte[out.length() + 100];
        System.arraycopy(out.array(), out.offset(), framed, 100, out.length());
        in.beginCall(framed, 100, out.length());
        Wrapped back = (Wrapped) in.readObject();
        in.endCall();
        return back;
    }

    @Test
    void aKeptFilterDecidesAsTheJdkStreamsDuringTheReadAndAfterIt() throws Exception {
        Object[] contents = {new Object[] {true, 7}, new Object[] {new Refused()}, new byte[100_000], "text",
            new ArrayList<>(List.of(1))};
        RemoraObjectInput in = new RemoraObjectInput(new ReadTypeTable(),
                SerializerOptions.DEFAULTS.withBoundArraysByMessage(true));
        in.setStreamFilter(ObjectInputFilter.Config.createFilter(PATTERN));
        List<String> jdk = new ArrayList<>();
        List<String> remora = new ArrayList<>();
        for (Object c : contents) {
            for (boolean now : new boolean[] {true, false}) {
                Wrapped j = viaJdk(new Wrapped(c, now));
                Wrapped r = viaRemora(new Wrapped(c, now), in);
                jdk.add(now ? j.whileRead : j.unwrap());
                remora.add(now ? r.whileRead : r.unwrap());
            }
        }
        assertEquals(Arrays.asList("Object[][true, 7]", "Object[][true, 7]",
                "InvalidClassException: filter status: REJECTED", "InvalidClassException: filter status: REJECTED",
                "byte[](100000)", "byte[](100000)", "String", "String",
                "InvalidClassException: filter status: REJECTED", "InvalidClassException: filter status: REJECTED"),
                jdk, "the JDK's own verdicts, which Remora's must match");
        assertEquals(jdk, remora);
    }
}
