package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.Serializable;
import java.io.StreamCorruptedException;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/**
 * An ObjectStreamClass value travels as the JDK's serialization of the descriptor (Wire.T_DESC); the reader must
 * read that descriptor and nothing else: no object hidden in its class annotations, no other content.
 */
class DescriptorValueTest {
    static final class Plain implements Serializable {
        private static final long serialVersionUID = 1L;
    }

    static final class Payload implements Serializable {
        private static final long serialVersionUID = 1L;
        static volatile boolean read;

        private void readObject(java.io.ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            read = true;
        }
    }

    /** Writes a descriptor of Plain whose class annotation holds a Payload object. */
    private static byte[] descriptorWithObject() throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b) {
            @Override
            protected void annotateClass(Class<?> cl) throws IOException {
                writeObject(new Payload());
            }
        }) {
            out.writeObject(ObjectStreamClass.lookup(Plain.class));
        }
        return b.toByteArray();
    }

    /** A Remora message holding {@code jdk} as its descriptor value, built from a genuine one. */
    private static byte[] withEmbedded(byte[] jdk) throws IOException {
        byte[] good = new RoundTrip(SerializerOptions.DEFAULTS).write(ObjectStreamClass.lookup(Plain.class));
        int at = -1;
        for (int i = 0; i + 1 < good.length; i++) {
            if ((good[i] & 0xff) == 0xac && (good[i + 1] & 0xff) == 0xed) {
                at = i;
                break;
            }
        }
        assertTrue(at > 1 && good[at - 2] == Wire.T_DESC, "a one-byte length after the tag");
        int n = good[at - 1];
        ByteArrayOutputStream m = new ByteArrayOutputStream();
        m.write(good, 0, at - 1);
        byte[] len = new byte[5];
        m.write(len, 0, RemoraObjectOutput.putVarint(len, 0, jdk.length));
        m.write(jdk, 0, jdk.length);
        m.write(good, at + n, good.length - at - n);
        return m.toByteArray();
    }

    private static Object read(byte[] m) throws Exception {
        RoundTrip rt = new RoundTrip(SerializerOptions.DEFAULTS);
        rt.in.beginCall(m, 0, m.length);
        try {
            return rt.in.readObject();
        } finally {
            rt.in.endCall();
        }
    }

    @Test
    void aGenuineDescriptorReads() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b) {
        }) {
            out.writeObject(ObjectStreamClass.lookup(Plain.class));
        }
        assertTrue(read(withEmbedded(b.toByteArray())) instanceof ObjectStreamClass);
    }

    @Test
    void anObjectInsideTheDescriptorIsRefused() throws Exception {
        Payload.read = false;
        Exception e = assertThrows(IOException.class, () -> read(withEmbedded(descriptorWithObject())));
        assertTrue(e instanceof InvalidClassException || e instanceof StreamCorruptedException
                || e.getCause() != null, e::toString);
        assertTrue(!Payload.read, "the hidden object was deserialized");
    }

    @Test
    void anythingButADescriptorIsRefused() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b) {
        }) {
            out.writeObject(new Payload());
        }
        Payload.read = false;
        assertThrows(StreamCorruptedException.class, () -> read(withEmbedded(b.toByteArray())));
        assertTrue(!Payload.read);
        byte[] cut = Arrays.copyOf(b.toByteArray(), 3);
        assertThrows(StreamCorruptedException.class, () -> read(withEmbedded(cut)));
    }
}
