package dev.remora.rmi;

import dev.remora.rmi.fast.FastChannel;
import dev.remora.rmi.fast.RmiFastInput;
import dev.remora.rmi.fast.RmiFastOutput;
import dev.remora.rmi.jdk.RemoraOutputStream;
import dev.remora.rmi.jdk.RmiInternals;
import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutput;
import java.rmi.Remote;
import java.util.List;

/**
 * How one side of a connection writes the values of a message that are not all primitive, and reads the values its
 * peer wrote: one object per format, chosen once per connection ({@link Marshalling}), never a choice at every step.
 * <ul>
 *   <li>{@link #JDK}: JDK serialization with what {@code sun.rmi.server.MarshalOutputStream/MarshalInputStream} add
 *       (class annotations, exported objects replaced by stubs, DGC registration of stubs read), a fresh stream per
 *       message; stateless, shared by every connection;</li>
 *   <li>{@link Fast}: Remora's serializer on the connection's {@link FastChannel} (frame flag {@link Frame#FLAG_FAST}):
 *       type ids belong to the connection and direction, so a fast message is written under the channel's write lock,
 *       held from its first byte until its frame is sent ({@link #lockWrite}), and read in arrival order.</li>
 * </ul>
 * All-primitive values never get here ({@link Marshal#writeRaw}).
 */
abstract class Marshaller {
    static final Marshaller JDK = new Jdk();

    /** The frame flag that says a payload is in this marshaller's format. */
    abstract byte flag();

    /** Held from a message's first byte until its frame is sent (fast); nothing for JDK serialization. */
    abstract void lockWrite();

    abstract void unlockWrite();

    /** Appends {@code values}; returns the exported objects it replaced by their stubs, or null. */
    abstract List<Remote> writeValues(FrameBuffer b, Class<?>[] types, Object[] values) throws IOException;

    abstract List<Remote> writeValue(FrameBuffer b, Class<?> type, Object value) throws IOException;

    abstract List<Remote> writeThrowable(FrameBuffer b, Throwable t) throws IOException;

    /**
     * A server reads the arguments from {@code b}'s position to its end; {@code filter} is the export's own (as
     * {@code UnicastServerRef.unmarshalCustomCallData} sets it), or null.
     */
    abstract Object[] readArguments(FrameBuffer b, Class<?>[] types, ObjectInputFilter filter)
            throws IOException, ClassNotFoundException;

    /**
     * A client reads a result of {@code type} (not void) of a call made through a stub whose class {@code stubLoader}
     * defined (its frame was on the caller's stack: the JDK's reader takes it as the default class loader).
     */
    abstract Object readValue(FrameBuffer b, Class<?> type, ClassLoader stubLoader)
            throws IOException, ClassNotFoundException;

    /** A client reads the exception a server sent (as {@link #readValue}). */
    abstract Object readThrowable(FrameBuffer b, ClassLoader stubLoader) throws IOException, ClassNotFoundException;

    /** A message nobody will read: what must still be read of it to stay in step with the writer. */
    abstract void skip(FrameBuffer b) throws IOException;

    static final class Jdk extends Marshaller {
        private Jdk() {
        }

        @Override
        byte flag() {
            return 0;
        }

        @Override
        void lockWrite() {
        }

        @Override
        void unlockWrite() {
        }

        @Override
        List<Remote> writeValues(FrameBuffer b, Class<?>[] types, Object[] values) throws IOException {
            RemoraOutputStream out = new RemoraOutputStream(b);
            for (int i = 0; i < types.length; i++) {
                put(out, types[i], values[i]);
            }
            out.flush();
            return out.replaced();
        }

        @Override
        List<Remote> writeValue(FrameBuffer b, Class<?> type, Object value) throws IOException {
            RemoraOutputStream out = new RemoraOutputStream(b);
            put(out, type, value);
            out.flush();
            return out.replaced();
        }

        @Override
        List<Remote> writeThrowable(FrameBuffer b, Throwable t) throws IOException {
            RemoraOutputStream out = new RemoraOutputStream(b);
            out.writeObject(t);
            out.flush();
            return out.replaced();
        }

        @Override
        Object[] readArguments(FrameBuffer b, Class<?>[] types, ObjectInputFilter filter)
                throws IOException, ClassNotFoundException {
            if (types.length == 0) {
                return Marshal.NO_ARGS;
            }
            ObjectInputStream in = input(b, true);
            if (filter != null) {
                in.setObjectInputFilter(filter);
            }
            Object[] values = new Object[types.length];
            for (int i = 0; i < types.length; i++) {
                values[i] = types[i].isPrimitive() ? Marshal.readPrimitive(in, types[i]) : in.readObject();
            }
            return values;
        }

        @Override
        Object readValue(FrameBuffer b, Class<?> type, ClassLoader stubLoader)
                throws IOException, ClassNotFoundException {
            ObjectInputStream in = input(b, false);
            return type.isPrimitive() ? Marshal.readPrimitive(in, type) : in.readObject();
        }

        @Override
        Object readThrowable(FrameBuffer b, ClassLoader stubLoader) throws IOException, ClassNotFoundException {
            return input(b, false).readObject();
        }

        @Override
        void skip(FrameBuffer b) {
        }

        /** RMI's own input stream; {@code server}: no default class loader (the context class loader decides). */
        private static ObjectInputStream input(FrameBuffer b, boolean server) throws IOException {
            try {
                return RmiInternals.marshalInput(b.in(), server);
            } catch (IOException | RuntimeException | Error e) {
                throw e;
            } catch (Throwable t) {
                throw new IOException(t);
            }
        }
    }

    static final class Fast extends Marshaller {
        private final FastChannel ch;
        private final RouterListener listener;
        private final boolean fault;

        Fast(FastChannel ch, RouterListener listener, boolean fault) {
            this.ch = ch;
            this.listener = listener;
            this.fault = fault;
        }

        @Override
        byte flag() {
            return Frame.FLAG_FAST;
        }

        @Override
        void lockWrite() {
            ch.lockWrite();
        }

        @Override
        void unlockWrite() {
            ch.unlockWrite();
        }

        @Override
        List<Remote> writeValues(FrameBuffer b, Class<?>[] types, Object[] values) throws IOException {
            RmiFastOutput out = ch.beginWrite();
            boolean done = false;
            try {
                injectFault();
                for (int i = 0; i < types.length; i++) {
                    put(out, types[i], values[i]);
                }
                done = true;
            } finally {
                if (!done) {
                    ch.abortWrite();
                }
            }
            return finish(b, out);
        }

        @Override
        List<Remote> writeValue(FrameBuffer b, Class<?> type, Object value) throws IOException {
            RmiFastOutput out = ch.beginWrite();
            boolean done = false;
            try {
                injectFault();
                put(out, type, value);
                done = true;
            } finally {
                if (!done) {
                    ch.abortWrite();
                }
            }
            return finish(b, out);
        }

        @Override
        List<Remote> writeThrowable(FrameBuffer b, Throwable t) throws IOException {
            RmiFastOutput out = ch.beginWrite();
            boolean done = false;
            try {
                injectFault();
                out.writeObject(t);
                done = true;
            } finally {
                if (!done) {
                    ch.abortWrite();
                }
            }
            return finish(b, out);
        }

        private void injectFault() {
            if (fault) {
                throw new InternalError("remora: fault injected into the fast serializer"
                        + " (remora.debug.faults=serializer)");
            }
        }

        private List<Remote> finish(FrameBuffer b, RmiFastOutput out) {
            int described = ch.finishWrite(b);
            if (described > 0) {
                listener.typeDescriptors(described);
            }
            return out.replaced();
        }

        @Override
        Object[] readArguments(FrameBuffer b, Class<?>[] types, ObjectInputFilter filter)
                throws IOException, ClassNotFoundException {
            if (types.length == 0) {
                return Marshal.NO_ARGS;
            }
            Object[] values = new Object[types.length];
            RmiFastInput in = ch.beginRead(b, true, null, filter);
            try {
                for (int i = 0; i < types.length; i++) {
                    values[i] = types[i].isPrimitive() ? Marshal.readPrimitive(in, types[i]) : in.readObject();
                }
            } finally {
                ch.endRead(in);
            }
            return values;
        }

        @Override
        Object readValue(FrameBuffer b, Class<?> type, ClassLoader stubLoader)
                throws IOException, ClassNotFoundException {
            RmiFastInput in = ch.beginRead(b, false, stubLoader, null);
            try {
                return type.isPrimitive() ? Marshal.readPrimitive(in, type) : in.readObject();
            } finally {
                ch.endRead(in);
            }
        }

        @Override
        Object readThrowable(FrameBuffer b, ClassLoader stubLoader) throws IOException, ClassNotFoundException {
            RmiFastInput in = ch.beginRead(b, false, stubLoader, null);
            try {
                return in.readObject();
            } finally {
                ch.endRead(in);
            }
        }

        @Override
        void skip(FrameBuffer b) throws IOException {
            ch.endRead(ch.beginRead(b, true, null, null)); // descriptors only: no class is resolved
        }
    }

    /** One value, as {@code UnicastRef.marshalValue} writes it. */
    private static void put(ObjectOutput out, Class<?> type, Object v) throws IOException {
        if (type.isPrimitive()) {
            Marshal.writePrimitive(out, type, v);
        } else {
            out.writeObject(v);
        }
    }
}
