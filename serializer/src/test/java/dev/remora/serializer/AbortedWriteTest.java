package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.io.WriteAbortedException;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Stream mode: a top-level write that fails with an IOException leaves it in the stream, as the JDK's
 * writeFatalException does; the reader throws it inside a WriteAbortedException and the stream goes on, with
 * handles cleared on both sides (jtreg nonserializable/ExceptionDetail).
 */
class AbortedWriteTest {
    static final class Holder implements Serializable {
        private static final long serialVersionUID = 1L;
        final Object inner;

        Holder(Object inner) {
            this.inner = inner;
        }
    }

    static final class NotSer {
    }

    private static void write(ObjectOutputStream out, String shared) throws IOException {
        out.writeObject(shared);
        out.writeInt(5);
        try {
            out.writeObject(new Holder(new NotSer()));
            throw new AssertionError("written");
        } catch (java.io.NotSerializableException expected) {
            // as the JDK
        }
        out.writeObject(shared); // after the abort: handles were cleared, so written again in full
        out.writeObject(new Holder("fine"));
    }

    private static List<String> read(ObjectInputStream in) throws Exception {
        List<String> r = new ArrayList<>();
        Object first = in.readObject();
        r.add(String.valueOf(first));
        r.add(String.valueOf(in.readInt()));
        try {
            r.add("read " + in.readObject());
        } catch (WriteAbortedException e) {
            r.add("WriteAbortedException(" + e.detail + ")");
        }
        Object again = in.readObject();
        r.add(again + ", same object as before the abort: " + (again == first));
        r.add(String.valueOf(((Holder) in.readObject()).inner));
        return r;
    }

    /** jtreg oldTests/CheckForException: the middle class's writeObject and readObject throw. */
    static class Pickle implements Serializable {
        private static final long serialVersionUID = 1L;
        int ii = 17;
        transient List<String> log;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeUTF("Pickle");
            out.writeInt(ii);
        }

        private void readObject(ObjectInputStream in) throws IOException {
            READS.add("Pickle.readObject " + in.readUTF() + " " + in.readInt());
        }
    }

    static class NoPickle extends Pickle {
        private static final long serialVersionUID = 1L;

        private void writeObject(ObjectOutputStream out) throws IOException {
            throw new java.io.NotSerializableException("NoPickle");
        }

        private void readObject(ObjectInputStream in) throws IOException {
            READS.add("NoPickle.readObject");
            throw new java.io.NotSerializableException("NoPickle");
        }
    }

    static final class TryPickle extends NoPickle {
        private static final long serialVersionUID = 1L;
        int i = 7;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeInt(i);
        }

        private void readObject(ObjectInputStream in) throws IOException {
            READS.add("TryPickle.readObject " + in.readInt());
        }
    }

    /** Writes some custom data, then fails on an object it holds; its reader reads what is there, then more. */
    static final class Partial implements Serializable {
        private static final long serialVersionUID = 1L;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.writeInt(3);
            out.writeObject("kept");
            out.writeObject(new NotSer());
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            READS.add("Partial.readObject " + in.readInt() + " " + in.readObject());
            try {
                READS.add("then " + in.readObject());
            } catch (IOException e) {
                READS.add("then " + e);
                throw e;
            }
        }
    }

    static final List<String> READS = new ArrayList<>();

    private interface Writes {
        void to(ObjectOutputStream out) throws IOException;
    }

    /** What a reader sees of the stream: each value or exception of n readObject calls, and the readObject log. */
    private static List<String> outcomes(boolean fast, Writes w, int n) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = fast ? FastStreams.newWriter(b) : new ObjectOutputStream(b)) {
            w.to(out);
        }
        byte[] bytes = b.toByteArray();
        READS.clear();
        List<String> r = new ArrayList<>();
        try (ObjectInputStream in = fast ? FastStreams.newReader(new ByteArrayInputStream(bytes, 4, bytes.length - 4))
                : new ObjectInputStream(new ByteArrayInputStream(bytes))) {
            for (int i = 0; i < n; i++) {
                try {
                    r.add("read " + in.readObject());
                } catch (Exception e) {
                    r.add(e.toString());
                }
            }
        }
        r.addAll(READS);
        return r;
    }

    private static void expectAsJdk(Writes w, int n, String... expected) throws Exception {
        List<String> jdk = outcomes(false, w, n);
        assertEquals(List.of(expected), jdk, "the JDK");
        assertEquals(jdk, outcomes(true, w, n), "remora.oos=fast");
    }

    private static void tryWrite(ObjectOutputStream out, Object o) throws IOException {
        try {
            out.writeObject(o);
            throw new AssertionError("written");
        } catch (java.io.NotSerializableException expected) {
            // as the JDK
        }
    }

    @Test
    void theAbortedValuesPartialDataIsReadFirst() throws Exception {
        expectAsJdk(out -> {
            out.writeObject("test");
            tryWrite(out, new TryPickle());
            out.writeObject("after");
        }, 4, "read test", "java.io.NotSerializableException: NoPickle",
                "java.io.WriteAbortedException: writing aborted; java.io.NotSerializableException: NoPickle",
                "read after", "Pickle.readObject Pickle 17", "NoPickle.readObject");
    }

    @Test
    void anObjectReadWhereTheDataStopsThrowsTheAbort() throws Exception {
        String aborted = "java.io.WriteAbortedException: writing aborted; java.io.NotSerializableException: "
                + NotSer.class.getName();
        expectAsJdk(out -> {
            tryWrite(out, new Partial());
            out.writeObject("after");
        }, 2, aborted, "read after", "Partial.readObject 3 kept", "then " + aborted);
    }

    @Test
    void theReaderGetsTheWritersExceptionAndGoesOn() throws Exception {
        ByteArrayOutputStream jb = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(jb)) {
            write(out, "shared");
        }
        List<String> jdk;
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(jb.toByteArray()))) {
            jdk = read(in);
        }
        ByteArrayOutputStream fb = new ByteArrayOutputStream();
        try (ObjectOutputStream out = FastStreams.newWriter(fb)) {
            write(out, "shared");
        }
        List<String> ours;
        try (ObjectInputStream in = FastStreams.newReader(new ByteArrayInputStream(fb.toByteArray(), 4, fb.size() - 4))) {
            ours = read(in);
        }
        assertEquals(jdk, ours);
        assertEquals("WriteAbortedException(java.io.NotSerializableException: "
                + NotSer.class.getName() + ")", ours.get(2));
    }
}
