package dev.remora.rmi.wire;

import dev.remora.serializer.KeptBuffer;
import dev.remora.serializer.MessageTooLargeError;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectOutput;
import java.io.OutputStream;
import java.io.UTFDataFormatException;

/**
 * A growable byte array that one thread fills with a frame (header, then payload) and sends, or receives a frame into
 * and reads it back. Big-endian like {@code DataOutput}. It is an {@link ObjectOutput} so that JDK types which write
 * themselves to one ({@code ObjID.write}) write straight into the frame, and an {@link OutputStream} / an
 * {@link InputStream} ({@link #in()}) for the JDK serialization streams that wrap the payload.
 *
 * <p>Reused per thread or per connection: no allocation once it has grown to the largest frame seen.
 */
public final class FrameBuffer extends OutputStream implements ObjectOutput {
    private byte[] buf;
    private int limit;
    private int pos;
    private boolean tailAllowed;
    private Tail tail;
    private int tailLength;
    private final Reader reader = new Reader();
    /** A received frame's primitive arrays that came apart from its bytes ({@link #addApart}). */
    private Object[] apart = new Object[0];
    private int[] apartAt = new int[0];
    private int apartCount;

    private final int initial;
    /** The large array of an earlier message, for the next large one ({@link #relax}). */
    private final KeptBuffer kept = new KeptBuffer();

    public FrameBuffer(int capacity) {
        initial = Math.max(64, capacity);
        buf = new byte[initial];
    }

    public byte[] array() {
        return buf;
    }

    /** Bytes written (when filling) or received (when reading). */
    public int length() {
        return limit;
    }

    public int position() {
        return pos;
    }

    public void position(int p) {
        pos = p;
    }

    /**
     * Lets a large payload stay where the serializer wrote it ({@link #setTail}) instead of being copied in: for
     * frames that go straight to a {@code Link} while the payload's owner keeps it unchanged (FastChannel's write
     * lock, held until the frame is sent). Returns this.
     */
    public FrameBuffer allowTail() {
        tailAllowed = true;
        return this;
    }

    public boolean tailAllowed() {
        return tailAllowed;
    }

    /**
     * A frame's payload left where the serializer put it: pieces, in order, each a range of a {@code byte[]} or of a
     * primitive array whose memory (native byte order) is the bytes to send. Valid until the frame is sent.
     */
    public interface Tail {
        /** Bytes in all. */
        int length();

        int pieces();

        /** Piece i's array: a {@code byte[]} or another primitive array. */
        Object piece(int i);

        /** Where piece i starts in its array, in bytes. */
        int pieceOffset(int i);

        /**
         * If piece i is a whole primitive array of the message (one the receiver may read into an array of its own,
         * {@link FrameBuffer#addApart}), its component code ({@code 'I'} for an {@code int[]}); else 0.
         */
        default char pieceElement(int i) {
            return 0;
        }

        /** Piece i's length in bytes. */
        int pieceLength(int i);

        /** Copies the whole tail to {@code dst[at, at + length())}. */
        void copyTo(byte[] dst, int at);
    }

    /**
     * Makes {@code t} the rest of the frame, after this buffer's bytes: the frame on the wire is
     * {@code array()[0, length())} then the tail ({@link #frameLength()} bytes in all). Nothing may be written after
     * it (the header may still be patched); {@link #clear()} drops it.
     */
    public void setTail(Tail t) {
        if (!tailAllowed) {
            throw new IllegalStateException("this frame buffer takes no tail");
        }
        if ((long) limit + t.length() > MessageTooLargeError.MAX_BYTES) {
            throw new MessageTooLargeError((long) limit + t.length()); // the frame's length is an int
        }
        tail = t;
        tailLength = t.length();
    }

    /** The tail, or null (see {@link #setTail}). */
    public Tail tail() {
        return tail;
    }

    /** The tail's length, 0 without one. */
    public int tailLength() {
        return tailLength;
    }

    /** The whole frame's length: {@link #length()} plus the tail's. */
    public int frameLength() {
        return limit + tailLength;
    }

    /** Copies the tail (if any) behind this buffer's bytes and drops it: the frame is then array()[0, length()). */
    public void absorbTail() {
        if (tailLength > 0) {
            Tail t = tail;
            dropTail();
            append(t);
        }
    }

    /** Copies t behind this buffer's bytes. */
    public void append(Tail t) {
        int len = t.length();
        ensure(len);
        t.copyTo(buf, limit);
        limit += len;
    }

    private void dropTail() {
        tail = null;
        tailLength = 0;
    }

    /**
     * A received frame's primitive array that the link read apart from the frame's bytes (a fast message's large
     * array): the frame lacks its elements, which belong at {@code at} in {@link #array()}; the reader takes it there
     * ({@code RemoraObjectInput#provideArrays}). In ascending order of {@code at}; dropped with the frame's content.
     */
    public void addApart(Object array, int at) {
        if (apartCount == apart.length) {
            int n = Math.max(4, 2 * apartCount);
            apart = java.util.Arrays.copyOf(apart, n);
            apartAt = java.util.Arrays.copyOf(apartAt, n);
        }
        apart[apartCount] = array;
        apartAt[apartCount++] = at;
    }

    /** How many arrays came apart ({@link #addApart}); {@link #apartArrays()} and {@link #apartAt()} hold them. */
    public int apartCount() {
        return apartCount;
    }

    public Object[] apartArrays() {
        return apart;
    }

    public int[] apartAt() {
        return apartAt;
    }

    private void dropApart() {
        if (apartCount > 0) {
            java.util.Arrays.fill(apart, 0, apartCount, null);
            apartCount = 0;
        }
    }

    /** Empties the buffer for writing. */
    public FrameBuffer clear() {
        dropApart();
        dropTail();
        limit = 0;
        pos = 0;
        return this;
    }

    /** Makes room for a received frame of {@code n} bytes and sets the length; the caller fills {@link #array()}. */
    public byte[] prepareReceive(int n) {
        dropApart();
        dropTail();
        if (buf.length < n) {
            byte[] b = kept.take(n);
            buf = b != null ? b : new byte[Math.max(n, buf.length * 2)];
        }
        limit = n;
        pos = 0;
        return buf;
    }

    /**
     * The message in this buffer is done with (sent, or read): a buffer grown past {@link KeptBuffer#KEEP} goes back
     * to its first size and keeps the large array only weakly, for the next large message. Its content is gone.
     */
    public void relax() {
        dropApart();
        byte[] b = kept.relax(buf, initial);
        if (b != buf) {
            dropTail();
            buf = b;
            limit = 0;
            pos = 0;
        }
    }

    private void ensure(int more) {
        if (tailLength > 0) {
            throw new IllegalStateException("the frame has its tail: nothing can be written after it");
        }
        long need = (long) limit + more;
        if (need > buf.length) {
            if (need > MessageTooLargeError.MAX_BYTES) {
                throw new MessageTooLargeError(need); // a frame is one array
            }
            byte[] b = kept.take(need);
            if (b == null) {
                b = new byte[(int) Math.max(need, Math.min(MessageTooLargeError.MAX_BYTES, buf.length * 2L))];
            }
            System.arraycopy(buf, 0, b, 0, limit);
            buf = b;
        }
    }

    /** Leaves {@code n} bytes to be filled later (with the put methods); returns their offset. */
    public int skip(int n) {
        ensure(n);
        int at = limit;
        limit += n;
        return at;
    }

    public void putInt(int at, int v) {
        buf[at] = (byte) (v >>> 24);
        buf[at + 1] = (byte) (v >>> 16);
        buf[at + 2] = (byte) (v >>> 8);
        buf[at + 3] = (byte) v;
    }

    public void putShort(int at, int v) {
        buf[at] = (byte) (v >>> 8);
        buf[at + 1] = (byte) v;
    }

    public static int getInt(byte[] b, int at) {
        return (b[at] << 24) | ((b[at + 1] & 0xff) << 16) | ((b[at + 2] & 0xff) << 8) | (b[at + 3] & 0xff);
    }

    public static long getLong(byte[] b, int at) {
        return ((long) getInt(b, at) << 32) | (getInt(b, at + 4) & 0xffffffffL);
    }

    public static short getShort(byte[] b, int at) {
        return (short) ((b[at] << 8) | (b[at + 1] & 0xff));
    }

    // ---- writing (OutputStream / DataOutput / ObjectOutput) ----

    @Override
    public void write(int b) {
        ensure(1);
        buf[limit++] = (byte) b;
    }

    @Override
    public void write(byte[] b) {
        write(b, 0, b.length);
    }

    @Override
    public void write(byte[] b, int off, int len) {
        ensure(len);
        System.arraycopy(b, off, buf, limit, len);
        limit += len;
    }

    @Override
    public void writeBoolean(boolean v) {
        write(v ? 1 : 0);
    }

    @Override
    public void writeByte(int v) {
        write(v);
    }

    @Override
    public void writeShort(int v) {
        ensure(2);
        buf[limit++] = (byte) (v >>> 8);
        buf[limit++] = (byte) v;
    }

    @Override
    public void writeChar(int v) {
        writeShort(v);
    }

    @Override
    public void writeInt(int v) {
        ensure(4);
        putInt(limit, v);
        limit += 4;
    }

    @Override
    public void writeLong(long v) {
        ensure(8);
        putInt(limit, (int) (v >>> 32));
        putInt(limit + 4, (int) v);
        limit += 8;
    }

    @Override
    public void writeFloat(float v) {
        writeInt(Float.floatToIntBits(v));
    }

    @Override
    public void writeDouble(double v) {
        writeLong(Double.doubleToLongBits(v));
    }

    @Override
    public void writeBytes(String s) {
        for (int i = 0; i < s.length(); i++) {
            write(s.charAt(i));
        }
    }

    @Override
    public void writeChars(String s) {
        for (int i = 0; i < s.length(); i++) {
            writeChar(s.charAt(i));
        }
    }

    @Override
    public void writeUTF(String s) throws IOException {
        int n = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            n += c >= 1 && c < 0x80 ? 1 : c < 0x800 ? 2 : 3;
        }
        if (n > 65535) {
            throw new UTFDataFormatException("string of " + n + " UTF bytes is too long");
        }
        writeShort(n);
        ensure(n);
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c >= 1 && c < 0x80) {
                buf[limit++] = (byte) c;
            } else if (c < 0x800) {
                buf[limit++] = (byte) (0xc0 | (c >> 6));
                buf[limit++] = (byte) (0x80 | (c & 0x3f));
            } else {
                buf[limit++] = (byte) (0xe0 | (c >> 12));
                buf[limit++] = (byte) (0x80 | ((c >> 6) & 0x3f));
                buf[limit++] = (byte) (0x80 | (c & 0x3f));
            }
        }
    }

    /** Not a serialization stream: objects go through a JDK stream that wraps this buffer. */
    @Override
    public void writeObject(Object obj) throws IOException {
        throw new IOException("FrameBuffer writes primitives only");
    }

    @Override
    public void flush() {
    }

    @Override
    public void close() {
    }

    // ---- reading ----

    public int remaining() {
        return limit - pos;
    }

    private void need(int n) throws EOFException {
        if (limit - pos < n) {
            throw new EOFException("frame too short: needs " + n + " more bytes at " + pos + " of " + limit);
        }
    }

    public byte readByte() throws EOFException {
        need(1);
        return buf[pos++];
    }

    public boolean readBoolean() throws EOFException {
        return readByte() != 0;
    }

    public short readShort() throws EOFException {
        need(2);
        short v = getShort(buf, pos);
        pos += 2;
        return v;
    }

    public char readChar() throws EOFException {
        return (char) readShort();
    }

    public int readInt() throws EOFException {
        need(4);
        int v = getInt(buf, pos);
        pos += 4;
        return v;
    }

    public long readLong() throws EOFException {
        need(8);
        long v = getLong(buf, pos);
        pos += 8;
        return v;
    }

    public float readFloat() throws EOFException {
        return Float.intBitsToFloat(readInt());
    }

    public double readDouble() throws EOFException {
        return Double.longBitsToDouble(readLong());
    }

    /** The unread rest of the frame as a stream (the same object every time: one reader per buffer). */
    public InputStream in() {
        return reader;
    }

    private final class Reader extends InputStream {
        @Override
        public int read() {
            return pos < limit ? buf[pos++] & 0xff : -1;
        }

        @Override
        public int read(byte[] b, int off, int len) {
            if (len == 0) {
                return 0;
            }
            int n = Math.min(len, limit - pos);
            if (n <= 0) {
                return -1;
            }
            System.arraycopy(buf, pos, b, off, n);
            pos += n;
            return n;
        }

        @Override
        public int available() {
            return limit - pos;
        }

        @Override
        public long skip(long n) {
            int k = (int) Math.max(0, Math.min(n, limit - pos));
            pos += k;
            return k;
        }
    }
}
