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
