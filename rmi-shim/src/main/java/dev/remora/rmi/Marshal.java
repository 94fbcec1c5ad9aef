package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.fast.RmiFastInput;
import dev.remora.rmi.fast.RmiFastOutput;
import dev.remora.rmi.jdk.RemoraOutputStream;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.util.List;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Marshalling of arguments and results inside Remora frames. A method whose values are all primitive travels without
 * any stream (no allocation beyond boxing, as RMI's own Object[] does); otherwise one stream carries the values in
 * order, as {@code UnicastRef} writes them: with {@code remora.serializer=jdk} a fresh RMI-compatible JDK stream per
 * message, with {@code fast} the connection's {@link FastChannel} (frame flag {@link
 * dev.remora.rmi.wire.Frame#FLAG_FAST}). The *Fast methods expect the caller to hold the channel's write lock until
 * the frame is sent, and to read in arrival order.
 */
final class Marshal {
    /** Per-method facts both sides derive the same way from the Method, so nothing about them goes on the wire. */
    static final class MethodInfo {
        final Class<?>[] params;
        final Class<?> result;
        final boolean rawArgs;
        final boolean rawResult;

        MethodInfo(Method m) {
            params = m.getParameterTypes();
            result = m.getReturnType();
            boolean raw = true;
            for (Class<?> p : params) {
                raw &= p.isPrimitive();
            }
            rawArgs = raw;
            rawResult = result.isPrimitive();
        }
    }

    private static final ConcurrentHashMap<Method, MethodInfo> INFOS = new ConcurrentHashMap<>();
    private static final Object[] NO_ARGS = new Object[0];

    private Marshal() {
    }

    static MethodInfo info(Method m) {
        MethodInfo i = INFOS.get(m);
        if (i == null) {
            i = new MethodInfo(m);
            INFOS.putIfAbsent(m, i);
        }
        return i;
    }

    /** Writes {@code values} typed by {@code types}; returns the exported objects replaced by stubs, or null. */
    static List<Remote> write(FrameBuffer b, Class<?>[] types, Object[] values, boolean raw) throws IOException {
        if (raw) {
            for (int i = 0; i < types.length; i++) {
                writePrimitive(b, types[i], values[i]);
            }
            return null;
        }
        RemoraOutputStream out = new RemoraOutputStream(b);
        for (int i = 0; i < types.length; i++) {
            writeValue(out, types[i], values[i]);
        }
        out.flush();
        return out.replaced();
    }

    static List<Remote> writeOne(FrameBuffer b, Class<?> type, Object value, boolean raw) throws IOException {
        if (raw) {
            writePrimitive(b, type, value);
            return null;
        }
        RemoraOutputStream out = new RemoraOutputStream(b);
        writeValue(out, type, value);
        out.flush();
        return out.replaced();
    }

    static List<Remote> writeException(FrameBuffer b, Throwable t) throws IOException {
        RemoraOutputStream out = new RemoraOutputStream(b);
        out.writeObject(t);
        out.flush();
        return out.replaced();
    }

    // ---------------------------------------------------------------- fast serializer

    static List<Remote> writeFast(FastChannel ch, FrameBuffer b, Class<?>[] types, Object[] values, RouterListener l)
            throws IOException {
        RmiFastOutput out = ch.beginWrite();
        boolean done = false;
        try {
            for (int i = 0; i < types.length; i++) {
                writeValue(out, types[i], values[i]);
            }
            done = true;
        } finally {
            if (!done) {
                ch.abortWrite();
            }
        }
        return finishFast(ch, b, out, l);
    }

    static List<Remote> writeOneFast(FastChannel ch, FrameBuffer b, Class<?> type, Object value, RouterListener l)
            throws IOException {
        RmiFastOutput out = ch.beginWrite();
        boolean done = false;
        try {
            writeValue(out, type, value);
            done = true;
        } finally {
            if (!done) {
                ch.abortWrite();
            }
        }
        return finishFast(ch, b, out, l);
    }

    static List<Remote> writeExceptionFast(FastChannel ch, FrameBuffer b, Throwable t, RouterListener l)
            throws IOException {
        RmiFastOutput out = ch.beginWrite();
        boolean done = false;
        try {
            out.writeObject(t);
            done = true;
        } finally {
            if (!done) {
                ch.abortWrite();
            }
        }
        return finishFast(ch, b, out, l);
    }

    private static List<Remote> finishFast(FastChannel ch, FrameBuffer b, RmiFastOutput out, RouterListener l) {
        int described = ch.finishWrite(b);
        if (described > 0) {
            l.typeDescriptors(described);
        }
        return out.replaced();
    }

    /** Reads arguments (server) from b's position; {@code filter}: the exported object's own, or null. */
    static Object[] readFast(FastChannel ch, FrameBuffer b, Class<?>[] types, ObjectInputFilter filter)
            throws IOException, ClassNotFoundException {
        if (types.length == 0) {
            return NO_ARGS;
        }
        Object[] values = new Object[types.length];
        RmiFastInput in = ch.beginRead(b, true, filter);
        try {
            for (int i = 0; i < types.length; i++) {
                values[i] = types[i].isPrimitive() ? readPrimitive(in, types[i]) : in.readObject();
            }
        } finally {
            ch.endRead(in);
        }
        return values;
    }

    /** Reads a result (client) from b's position. */
    static Object readOneFast(FastChannel ch, FrameBuffer b, Class<?> type) throws IOException,
            ClassNotFoundException {
        RmiFastInput in = ch.beginRead(b, false, null);
        try {
            return type == void.class ? null : type.isPrimitive() ? readPrimitive(in, type) : in.readObject();
        } finally {
            ch.endRead(in);
        }
    }

    static Object readExceptionFast(FastChannel ch, FrameBuffer b) throws IOException, ClassNotFoundException {
        RmiFastInput in = ch.beginRead(b, false, null);
        try {
            return in.readObject();
        } finally {
            ch.endRead(in);
        }
    }

    /** A fast message nobody waits for (a late reply): its prelude is still read, to keep the types in step. */
    static void skipFast(FastChannel ch, FrameBuffer b) throws IOException {
        ch.endRead(ch.beginRead(b, false, null));
    }

    private static void writeValue(ObjectOutput out, Class<?> type, Object v) throws IOException {
        if (type.isPrimitive()) {
            writePrimitive(out, type, v);
        } else {
            out.writeObject(v);
        }
    }

    private static void writePrimitive(ObjectOutput out, Class<?> type, Object v) throws IOException {
        if (type == int.class) {
            out.writeInt((Integer) v);
        } else if (type == long.class) {
            out.writeLong((Long) v);
        } else if (type == boolean.class) {
            out.writeBoolean((Boolean) v);
        } else if (type == double.class) {
            out.writeDouble((Double) v);
        } else if (type == float.class) {
            out.writeFloat((Float) v);
        } else if (type == byte.class) {
            out.writeByte((Byte) v);
        } else if (type == char.class) {
            out.writeChar((Character) v);
        } else if (type == short.class) {
            out.writeShort((Short) v);
        } else if (type != void.class) {
            throw new IOException("unrecognized primitive type: " + type);
        }
    }

    static Object[] read(FrameBuffer b, Class<?>[] types, boolean raw, boolean server) throws Throwable {
        if (types.length == 0) {
            return NO_ARGS;
        }
        Object[] values = new Object[types.length];
        if (raw) {
            for (int i = 0; i < types.length; i++) {
                values[i] = readPrimitive(b, types[i]);
            }
            return values;
        }
        ObjectInputStream in = RmiInternals.marshalInput(b.in(), server);
        for (int i = 0; i < types.length; i++) {
            values[i] = types[i].isPrimitive() ? readPrimitive(in, types[i]) : in.readObject();
        }
        return values;
    }

    static Object readOne(FrameBuffer b, Class<?> type, boolean raw) throws Throwable {
        if (type == void.class) {
            return null;
        }
        if (raw) {
            return readPrimitive(b, type);
        }
        ObjectInputStream in = RmiInternals.marshalInput(b.in(), false);
        return type.isPrimitive() ? readPrimitive(in, type) : in.readObject();
    }

    static Object readException(FrameBuffer b) throws Throwable {
        return RmiInternals.marshalInput(b.in(), false).readObject();
    }

    private static Object readPrimitive(FrameBuffer in, Class<?> type) throws IOException {
        if (type == int.class) {
            return in.readInt();
        } else if (type == long.class) {
            return in.readLong();
        } else if (type == boolean.class) {
            return in.readBoolean();
        } else if (type == double.class) {
            return in.readDouble();
        } else if (type == float.class) {
            return in.readFloat();
        } else if (type == byte.class) {
            return in.readByte();
        } else if (type == char.class) {
            return in.readChar();
        } else if (type == short.class) {
            return in.readShort();
        }
        throw new IOException("unrecognized primitive type: " + type);
    }

    private static Object readPrimitive(ObjectInputStream in, Class<?> type) throws IOException {
        if (type == int.class) {
            return in.readInt();
        } else if (type == long.class) {
            return in.readLong();
        } else if (type == boolean.class) {
            return in.readBoolean();
        } else if (type == double.class) {
            return in.readDouble();
        } else if (type == float.class) {
            return in.readFloat();
        } else if (type == byte.class) {
            return in.readByte();
        } else if (type == char.class) {
            return in.readChar();
        } else if (type == short.class) {
            return in.readShort();
        }
        throw new IOException("unrecognized primitive type: " + type);
    }
}
