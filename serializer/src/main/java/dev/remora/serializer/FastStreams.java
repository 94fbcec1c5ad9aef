package dev.remora.serializer;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.StreamCorruptedException;

/**
 * Entry points for {@code remora.oos=fast}: Remora's format in the application's own files and sockets, behind a
 * header of its own.
 *
 * <p>The header is {@code AC ED 52 4E}: the JDK's magic followed by a version that is not 5, so a vanilla
 * {@link java.io.ObjectInputStream} fails loudly with {@code StreamCorruptedException: invalid stream header:
 * ACED524E} and never misreads. Its last byte is the format's own version ({@link #FORMAT}), raised whenever what
 * follows changes: a stream of another Remora format ({@code AC ED 52 xx}) is refused with a message naming both
 * formats ({@link #otherFormat}), never misread. Format 0x4D: the first; 0x4E: a write cut by a
 * failure keeps its partial data, custom-data sections end with a table of the objects they hold. After the header come frames {@code [int length BE][message]}, one per top-level
 * {@code writeObject} (objects never span frames), {@code flush()} or {@code reset()}; handles persist across
 * frames until {@code reset()}, types for the whole stream.
 *
 * <p>For the agent's instrumentation: in an instrumented {@code ObjectOutputStream(OutputStream)} constructor, call
 * {@link #newWriter(OutputStream)} (it writes the header) and forward every public method of the instrumented
 * stream to the returned {@link RemoraObjectOutput}, which is itself an {@code ObjectOutputStream}. In an
 * instrumented {@code ObjectInputStream(InputStream)} constructor, read the first 4 bytes; if
 * {@link #isFastHeader(byte[])} forward every read to {@link #newReader(InputStream)} (header consumed),
 * else continue with the JDK's own logic on the same 4 bytes (an instrumented reader reads both formats).
 */
public final class FastStreams {
    /** The fast format's version, the header's last byte. */
    public static final byte FORMAT = 0x4E;
    /** Stream header of the fast format. */
    public static final byte[] HEADER = {(byte) 0xAC, (byte) 0xED, 0x52, FORMAT};
    /** The two shorts a JDK {@code readStreamHeader} sees. */
    public static final short MAGIC = (short) 0xACED;
    public static final short VERSION = 0x5200 | FORMAT;

    private FastStreams() {
    }

    /** True when b starts with {@link #HEADER}. */
    public static boolean isFastHeader(byte[] b) {
        return b != null && b.length >= 4 && b[0] == HEADER[0] && b[1] == HEADER[1] && b[2] == HEADER[2]
                && b[3] == HEADER[3];
    }

    /** True for the magic/version pair a {@code readStreamHeader} reads. */
    public static boolean isFastHeader(short magic, short version) {
        return magic == MAGIC && version == VERSION;
    }

    /**
     * For a header of another Remora format ({@code AC ED 52 xx}, {@code xx} not {@link #FORMAT}): the exception to
     * throw, naming both formats; null for any other header.
     */
    public static StreamCorruptedException otherFormat(short magic, short version) {
        if (magic != MAGIC || (version & 0xFF00) != 0x5200 || version == VERSION) {
            return null;
        }
        return new StreamCorruptedException(String.format("invalid stream header: %04X%04X: written by another Remora"
                + " release in its stream format %02X (remora.oos=fast); this one reads format %02X: read it with the"
                + " release that wrote it", magic & 0xFFFF, version & 0xFFFF, version & 0xFF, FORMAT));
    }

    /** A writer of the fast format on out; writes the header now. */
    public static RemoraObjectOutput newWriter(OutputStream out) throws IOException {
        return newWriter(out, SerializerOptions.DEFAULTS);
    }

    public static RemoraObjectOutput newWriter(OutputStream out, SerializerOptions options) throws IOException {
        // The writer first: nothing reaches out unless the writer exists (the agent falls back to the JDK's header).
        RemoraObjectOutput w = new RemoraObjectOutput(new WriteTypeTable(),
                options.withTypeCache(TypeCacheMode.CONNECTION), out);
        out.write(HEADER);
        return w;
    }

    /** A reader of the fast format from in, whose header has been consumed already. */
    public static RemoraObjectInput newReader(InputStream in) throws IOException {
        return newReader(in, SerializerOptions.DEFAULTS);
    }

    public static RemoraObjectInput newReader(InputStream in, SerializerOptions options) throws IOException {
        return new RemoraObjectInput(new ReadTypeTable(), options, in);
    }

    /**
     * A reader of the fast format for an application's {@code ObjectInputStream} subclass: classes, proxy classes
     * and (when it enabled them) replacements are the subclass's to decide, through {@code host}.
     */
    public static RemoraObjectInput newReader(InputStream in, SerializerOptions options, StreamHost host)
            throws IOException {
        RemoraObjectInput r = new RemoraObjectInput(new ReadTypeTable(), options, in);
        r.host = host;
        return r;
    }

    /**
     * A reader for either format, as an instrumented reader behaves: Remora's after its header, else a plain
     * {@link java.io.ObjectInputStream} that sees the bytes from the start.
     */
    public static java.io.ObjectInputStream openEither(InputStream in, SerializerOptions options) throws IOException {
        byte[] h = in.readNBytes(4);
        if (isFastHeader(h)) {
            return newReader(in, options);
        }
        return new java.io.ObjectInputStream(new java.io.SequenceInputStream(new java.io.ByteArrayInputStream(h), in));
    }

    /** Reads and checks the header, then returns a reader. */
    public static RemoraObjectInput openReader(InputStream in, SerializerOptions options) throws IOException {
        byte[] h = in.readNBytes(4);
        if (!isFastHeader(h)) {
            throw new StreamCorruptedException("not a Remora fast-format stream (header "
                    + String.format("%02X%02X%02X%02X", h.length > 0 ? h[0] : 0, h.length > 1 ? h[1] : 0,
                    h.length > 2 ? h[2] : 0, h.length > 3 ? h[3] : 0) + ")");
        }
        return newReader(in, options);
    }
}
