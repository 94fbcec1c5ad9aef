package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The shim's RMI hooks: replaceObject (exported object -> stub) and resolveObject, in the JDK's order. */
class ReplaceResolveTest {

    /** Stands for an exported remote object: not serializable, must be replaced. */
    static final class Exported {
        final String id;

        Exported(String id) {
            this.id = id;
        }
    }

    static final class Stub implements Serializable {
        final String id;

        Stub(String id) {
            this.id = id;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Stub && ((Stub) o).id.equals(id);
        }

        @Override
        public int hashCode() {
            return id.hashCode();
        }

        @Override
        public String toString() {
            return "Stub(" + id + ")";
        }
    }

    static Object replace(Object o) {
        return o instanceof Exported ? new Stub(((Exported) o).id) : o;
    }

    static Object resolve(Object o) {
        return o instanceof Stub ? "resolved:" + ((Stub) o).id : o;
    }

    static final class JdkOut extends ObjectOutputStream {
        JdkOut(OutputStream out) throws IOException {
            super(out);
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            return replace(obj);
        }
    }

    static final class JdkIn extends ObjectInputStream {
        JdkIn(byte[] b) throws IOException {
            super(new ByteArrayInputStream(b));
            enableResolveObject(true);
        }

        @Override
        protected Object resolveObject(Object obj) {
            return resolve(obj);
        }
    }

    static final class ShimOut extends RemoraObjectOutput {
        ShimOut() throws IOException {
            super(new WriteTypeTable(), SerializerOptions.DEFAULTS);
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            return replace(obj);
        }
    }

    static final class ShimIn extends RemoraObjectInput {
        ShimIn() throws IOException {
            super(new ReadTypeTable(), SerializerOptions.DEFAULTS);
            enableResolveObject(true);
        }

        @Override
        protected Object resolveObject(Object obj) {
            return resolve(obj);
        }
    }

    @Test
    void replaceAndResolveAsTheJdk() throws Exception {
        Exported e = new Exported("e1");
        Fixtures.Int32 n = Fixtures.Int32.sample();
        Object[] graph = {e, n, e, List.of(e, "s"), n};

        ByteArrayOutputStream bos = new ByteArrayOutputStream();
        try (JdkOut out = new JdkOut(bos)) {
            out.writeObject(graph);
        }
        Object[] jdk = (Object[]) new JdkIn(bos.toByteArray()).readObject();

        ShimOut out = new ShimOut();
        ShimIn in = new ShimIn();
        Object[] ours = null;
        for (int call = 0; call < 2; call++) { // second call: types cached, fast path with replacement on
            out.beginCall();
            out.writeObject(graph);
            out.finishCall();
            in.beginCall(out.array(), out.offset(), out.length());
            ours = (Object[]) in.readObject();
            in.endCall();
        }
        assertEquals(Arrays.deepToString(jdk), Arrays.deepToString(ours));
        assertEquals("resolved:e1", ours[0]);
        assertSame(ours[0], ours[2]);
        assertSame(ours[1], ours[4]);
        assertEquals(n, ours[1]);
    }
}
