package dev.remora.serializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;

/** Test helper: one connection's stream pair, and the JDK's round trip for comparison. */
final class RoundTrip {
    final RemoraObjectOutput out;
    final RemoraObjectInput in;

    RoundTrip() throws IOException {
        this(SerializerOptions.DEFAULTS);
    }

    RoundTrip(SerializerOptions o) throws IOException {
        out = new RemoraObjectOutput(new WriteTypeTable(), o);
        in = new RemoraObjectInput(new ReadTypeTable(), o);
    }

    /** Writes the objects as one call and returns the message bytes. */
    byte[] write(Object... objs) throws IOException {
        return write(out, objs);
    }

    /** Writes the objects as one call of out and returns the message bytes (read by pieces). */
    static byte[] write(RemoraObjectOutput out, Object... objs) throws IOException {
        out.beginCall();
        for (Object o : objs) {
            out.writeObject(o);
        }
        out.finishCall();
        byte[] m = new byte[out.length()];
        out.copyTo(m, 0);
        return m;
    }

    Object[] read(byte[] msg, int n) throws IOException, ClassNotFoundException {
        in.beginCall(msg, 0, msg.length);
        try {
            Object[] r = new Object[n];
            for (int i = 0; i < n; i++) {
                r[i] = in.readObject();
            }
            return r;
        } finally {
            in.endCall();
        }
    }

    Object roundTrip(Object o) throws IOException, ClassNotFoundException {
        return read(write(o), 1)[0];
    }

    Object[] roundTripAll(Object... objs) throws IOException, ClassNotFoundException {
        return read(write(objs), objs.length);
    }

    /**
     * The message as a sender of the other byte order would have written it, for a message whose bytes from
     * {@code from} on are 4-byte values only (ints, floats): the flag flipped, each group reversed.
     */
    static byte[] otherByteOrder(byte[] m, int from) {
        byte[] swapped = m.clone();
        swapped[0] ^= Wire.F_LITTLE_ENDIAN;
        for (int p = from; p < swapped.length; p += 4) {
            for (int k = 0; k < 4; k++) {
                swapped[p + k] = m[p + 3 - k];
            }
        }
        return swapped;
    }

    static Object jdk(Object o) throws IOException, ClassNotFoundException {
        return jdkAll(o)[0];
    }

    static Object[] jdkAll(Object... objs) throws IOException, ClassNotFoundException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(b)) {
            for (Object o : objs) {
                oos.writeObject(o);
            }
        }
        try (ObjectInputStream ois = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray()))) {
            Object[] r = new Object[objs.length];
            for (int i = 0; i < r.length; i++) {
                r[i] = ois.readObject();
            }
            return r;
        }
    }

    static byte[] jdkBytes(Object o) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream oos = new ObjectOutputStream(b)) {
            oos.writeObject(o);
        }
        return b.toByteArray();
    }
}
