package dev.remora.agent.hooks;

import dev.remora.agent.Log;
import dev.remora.serializer.FastStreams;
import dev.remora.serializer.RemoraObjectInput;
import dev.remora.serializer.SerializerOptions;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.StreamCorruptedException;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.lang.ref.WeakReference;

/**
 * The agent side of {@code remora.oos=fast} (see {@link FastOutputAdvice}, {@link FastInputAdvice}): opens Remora's
 * writer or reader under an application's {@code ObjectOutputStream}/{@code ObjectInputStream} when its
 * constructor reaches the stream header. Reached through {@code RemoraBridge.oosHeader/oisHeader}, which keep the
 * delegates.
 *
 * <p>Failure rule: what fails before a byte of the application's stream is written or read goes back to the JDK
 * (thrown, so the advice counts it in advice_errors and the JDK writes or reads its header). Once the 4 header bytes
 * are read, there is no going back: a fast stream that Remora cannot open fails with a StreamCorruptedException, as
 * the same stream fails in a JVM without Remora.
 */
public final class OosFast {
    /** Stream format version the JDK writes after its magic (ObjectStreamConstants.STREAM_VERSION). */
    private static final short JDK_VERSION = 5;

    private OosFast() {
    }

    /**
     * {@code (ObjectOutputStream, BlockDataOutputStream)}: Remora's header on the application's OutputStream, and
     * the writer, or the IOException the header's write threw.
     */
    static Object openWriter(ObjectOutputStream stream, Object bout) {
        OutputStream out = (OutputStream) Fields.BOUT_OUT.get(bout);
        try {
            ObjectOutputStream w = FastStreams.newWriter(out, SerializerOptions.DEFAULTS);
            Hooks.stats().fastStreams.increment();
            return w;
        } catch (IOException e) {
            return e;
        }
    }

    /**
     * {@code (ObjectInputStream, BlockDataInputStream)}: reads the 4 header bytes. Remora's header: a reader that
     * consults the application stream's filter; the JDK's: TRUE (the stream goes on in the JDK's format);
     * anything else: the exception the JDK's {@code readStreamHeader} throws.
     */
    static Object openReader(ObjectInputStream stream, Object bin) {
        InputStream in = (InputStream) Fields.BIN_IN.get(bin);
        byte[] h;
        try {
            h = in.readNBytes(4);
        } catch (IOException e) {
            return e;
        }
        if (h.length < 4) {
            return new EOFException();
        }
        short s0 = (short) ((h[0] & 0xFF) << 8 | (h[1] & 0xFF));
        short s1 = (short) ((h[2] & 0xFF) << 8 | (h[3] & 0xFF));
        if (s0 == FastStreams.MAGIC && s1 == JDK_VERSION) {
            return Boolean.TRUE;
        }
        if (!FastStreams.isFastHeader(s0, s1)) {
            StreamCorruptedException other = FastStreams.otherFormat(s0, s1);
            return other != null ? other : new StreamCorruptedException(String.format("invalid stream header: %04X%04X",
                    s0, s1));
        }
        try {
            // an application's subclass keeps its resolveClass/resolveProxyClass/resolveObject
            RemoraObjectInput r = stream.getClass() == ObjectInputStream.class
                    ? FastStreams.newReader(in, SerializerOptions.DEFAULTS)
                    : FastStreams.newReader(in, SerializerOptions.DEFAULTS, new SubclassHost(stream));
            r.setEffectiveFilter(new FilterOf(stream));
            Hooks.stats().fastStreams.increment();
            return r;
        } catch (Throwable t) {
            String why = "remora.oos=fast could not open a reader for a stream in Remora's format: " + t;
            Hooks.stats().fallback(why);
            Log.once("oos:reader:" + t.getClass().getName(), why, t);
            StreamCorruptedException e = new StreamCorruptedException(why);
            e.initCause(t);
            return e;
        }
    }

    /** {@code (fast-format reader)}: the class descriptor it is having the application's readClassDescriptor read. */
    static java.io.ObjectStreamClass classDescriptor(ObjectInputStream reader) throws IOException {
        return ((RemoraObjectInput) reader).classDescriptorBeingRead();
    }

    /**
     * The application stream's filter, looked up on every check: it is set the JDK's way on that stream
     * ({@code setObjectInputFilter} is final and runs the JDK's code, filter factory included).
     */
    private static final class FilterOf implements ObjectInputFilter {
        /** Weak: the bridge's map holds this reader as the value of the stream's weak key. */
        private final WeakReference<ObjectInputStream> stream;

        FilterOf(ObjectInputStream stream) {
            this.stream = new WeakReference<>(stream);
        }

        private ObjectInputFilter filter() {
            ObjectInputStream s = stream.get();
            return s == null ? null : s.getObjectInputFilter();
        }

        @Override
        public Status checkInput(FilterInfo info) {
            ObjectInputFilter f = filter();
            return f == null ? Status.UNDECIDED : f.checkInput(info);
        }

        @Override
        public String toString() {
            return String.valueOf(filter());
        }
    }

    /** The JDK's private stream fields, looked up on first use (java.io is opened to the agent at install). */
    private static final class Fields {
        static final VarHandle BOUT_OUT;
        static final VarHandle BIN_IN;

        static {
            try {
                Class<?> bout = Class.forName("java.io.ObjectOutputStream$BlockDataOutputStream");
                Class<?> bin = Class.forName("java.io.ObjectInputStream$BlockDataInputStream");
                Class<?> peek = Class.forName("java.io.ObjectInputStream$PeekInputStream");
                BOUT_OUT = MethodHandles.privateLookupIn(bout, MethodHandles.lookup())
                        .findVarHandle(bout, "out", OutputStream.class);
                BIN_IN = MethodHandles.privateLookupIn(bin, MethodHandles.lookup()).findVarHandle(bin, "in", peek);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }
    }
}
