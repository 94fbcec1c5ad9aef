package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import dev.remora.serializer.PrimitiveArrays;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;

/**
 * A large frame's map: it goes just before the frame and names the frame's primitive arrays of {@link #MIN_APART}
 * bytes or more, so that the receiver reads their elements into arrays of their own and only the rest into the frame
 * ({@link FrameBuffer#addApart}); the reader takes each array where its elements would start. A large value is then
 * received once, not into a frame of its size (fresh memory, which the kernel clears page by page) and again into its
 * array. The fabric link sends one before every frame above a message's size (and then the frame in pieces), the
 * socket link before a frame that has such arrays.
 *
 * <pre>
 * offset size
 *  0      4    0          where a frame has its length, which is never 0
 *  4      4    length     the frame's, arrays included
 *  8      4    count      arrays apart
 * 12      1    order      the arrays' byte order: 1 little-endian, 0 big-endian (the sender's native order)
 * 13      1    kind       the frame's
 * 14      2    0
 * 16      4    call id    the frame's
 * 20     12n   arrays     per array: where its elements start in the frame (4), their bytes (4), its component
 *                         code (4, e.g. 'I' for an int[]); in order, apart from each other and from the header
 * </pre>
 *
 * <p>A receiver {@link #read}s the map, {@link #begin}s the frame, then puts the frame's bytes in order
 * ({@link #put}, in runs no longer than {@link #run()}) and {@link #finish}es. Whatever does not add up is an
 * {@link IllegalArgumentException} whose message says what; the link closes the connection.
 */
public final class FrameMap {
    public static final int HEAD = 20;
    public static final int ENTRY = 12;
    /** Arrays at least this long travel apart. */
    public static final int MIN_APART = 256 * 1024;

    private final int total;
    private final byte kind;
    private final int callId;
    private final ByteOrder order;
    private final int[] off;
    private final int[] bytes;
    private final char[] code;
    private FrameBuffer dst;
    private byte[] d;
    private Object[] arrays;
    private int at; // where in the frame the next byte belongs
    private int k; // the next array apart
    private int before; // bytes of arrays apart before it

    private FrameMap(int total, byte kind, int callId, ByteOrder order, int count) {
        this.total = total;
        this.kind = kind;
        this.callId = callId;
        this.order = order;
        off = new int[count];
        bytes = new int[count];
        code = new char[count];
    }

    /**
     * The map of {@code frame}: its tail's whole byte arrays of {@link #MIN_APART} bytes or more and its other arrays
     * of {@code minNumbers} bytes or more, at most {@code maxArrays} of them (the rest stay in the frame); null if it
     * has none, unless {@code always}.
     */
    public static FrameBuffer of(FrameBuffer frame, int maxArrays, boolean always, int minNumbers) {
        FrameBuffer.Tail t = frame.tail();
        FrameBuffer map = null;
        int count = 0;
        long at = frame.length();
        for (int i = 0; t != null && i < t.pieces(); i++) {
            int len = t.pieceLength(i);
            char c = t.pieceElement(i);
            if (c != 0 && len >= (c == 'B' ? MIN_APART : Math.max(MIN_APART, minNumbers)) && t.pieceOffset(i) == 0
                    && count < maxArrays) {
                if (map == null) {
                    map = head(frame);
                }
                map.writeInt((int) at);
                map.writeInt(len);
                map.writeInt(c);
                count++;
            }
            at += len;
        }
        if (map == null) {
            if (!always) {
                return null;
            }
            map = head(frame);
        }
        map.putInt(8, count);
        return map;
    }

    private static FrameBuffer head(FrameBuffer frame) {
        FrameBuffer map = new FrameBuffer(HEAD + 4 * ENTRY);
        map.writeInt(0);
        map.writeInt(frame.frameLength());
        map.writeInt(0); // the count, at the end
        map.writeByte(ByteOrder.nativeOrder() == ByteOrder.LITTLE_ENDIAN ? 1 : 0);
        map.writeByte(frame.array()[Frame.OFF_KIND]);
        map.writeShort(0);
        map.writeInt(FrameBuffer.getInt(frame.array(), Frame.OFF_CALL_ID));
        return map;
    }

    /** How many bytes the map at {@code m[at]} has, from its first 12 (its count); negative for a bad count. */
    public static long length(ByteBuffer m, int at) {
        int count = m.duplicate().order(ByteOrder.BIG_ENDIAN).getInt(at + 8);
        return count < 0 ? -1 : HEAD + (long) count * ENTRY;
    }

    /**
     * Reads the map of {@code n} bytes at {@code m[at]} (big-endian, as {@link FrameBuffer} writes), checked against
     * the largest frame accepted.
     */
    public static FrameMap read(ByteBuffer buffer, int at, int n, int maxFrame) {
        ByteBuffer m = buffer.duplicate().order(ByteOrder.BIG_ENDIAN);
        int total = m.getInt(at + 4);
        int count = m.getInt(at + 8);
        byte kind = m.get(at + 13);
        if (total < Frame.HEADER || total > maxFrame || kind < Frame.CALL || kind > Frame.LAST_KIND || count < 0
                || n != HEAD + (long) count * ENTRY) {
            throw new IllegalArgumentException("a map of " + n + " bytes for a frame of " + total + " bytes, kind "
                    + kind + ", " + count + " arrays apart (largest frame accepted: " + maxFrame + " bytes)");
        }
        FrameMap f = new FrameMap(total, kind, m.getInt(at + 16),
                m.get(at + 12) == 1 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN, count);
        long end = Frame.HEADER;
        for (int i = 0; i < count; i++) {
            int e = at + HEAD + i * ENTRY;
            f.off[i] = m.getInt(e);
            f.bytes[i] = m.getInt(e + 4);
            f.code[i] = (char) m.getInt(e + 8);
            int size = PrimitiveArrays.size(f.code[i]);
            if (f.off[i] < end || f.bytes[i] <= 0 || (long) f.off[i] + f.bytes[i] > total || size == 0
                    || f.bytes[i] % size != 0) {
                throw new IllegalArgumentException("array " + i + " apart at " + f.off[i] + ", " + f.bytes[i]
                        + " bytes, code " + (int) f.code[i] + ", in a frame of " + total + " bytes");
            }
            end = (long) f.off[i] + f.bytes[i];
        }
        return f;
    }

    /** The frame's length, arrays included. */
    public int total() {
        return total;
    }

    /** Makes the arrays and the sink's buffer for the rest of the frame; returns the buffer. */
    public FrameBuffer begin(Link.Sink sink) {
        int compact = total;
        for (int b : bytes) {
            compact -= b;
        }
        dst = sink.bufferFor(kind, callId, compact);
        d = dst.prepareReceive(compact);
        arrays = new Object[off.length];
        for (int i = 0, b = 0; i < off.length; i++) {
            arrays[i] = PrimitiveArrays.newArray(code[i], bytes[i] / PrimitiveArrays.size(code[i]));
            dst.addApart(arrays[i], off[i] - b);
            b += bytes[i];
        }
        return dst;
    }

    /** Bytes of the frame still to come. */
    public int remaining() {
        return total - at;
    }

    /** Bytes from here that go to one place: the rest of an array apart, or of the frame up to the next array. */
    public int run() {
        return inArray() ? bytes[k] - (at - off[k]) : (k < off.length ? off[k] : total) - at;
    }

    private boolean inArray() {
        return k < off.length && at >= off[k];
    }

    /** The element size of where the next bytes go: an array apart's, 1 in the frame. */
    public int elementSize() {
        return inArray() ? PrimitiveArrays.size(code[k]) : 1;
    }

    /**
     * Where the next bytes can be read straight into, a {@code byte[]} (the frame's, or a byte array apart), at
     * {@link #directOffset()}; null when they go into another array apart ({@link #put}).
     */
    public byte[] direct() {
        if (!inArray()) {
            return d;
        }
        return arrays[k] instanceof byte[] ? (byte[]) arrays[k] : null;
    }

    public int directOffset() {
        return inArray() ? at - off[k] : at - before;
    }

    /** {@code n} bytes (at most {@link #run()}) were read into {@link #direct()}. */
    public void advance(int n) {
        at += n;
        if (inArray() && at - off[k] == bytes[k]) {
            before += bytes[k];
            k++;
        }
    }

    /**
     * Puts {@code n} bytes from {@code src[from]} where they belong (at most {@link #remaining()}); inside an array
     * apart they must be whole elements.
     */
    public void put(ByteBuffer src, int from, int n) {
        if (n > total - at) {
            throw new IllegalArgumentException(n + " bytes where " + (total - at) + " bytes of a frame of " + total
                    + " were due");
        }
        for (int p = from, end = from + n; p < end; ) {
            int take = Math.min(end - p, run());
            if (inArray()) {
                int size = PrimitiveArrays.size(code[k]);
                int in = at - off[k];
                if (take % size != 0) {
                    throw new IllegalArgumentException("a piece of the frame ends inside element "
                            + (in + take) / size + " of array " + k + " apart");
                }
                fill(arrays[k], in / size, size, src, p, take, order);
            } else {
                src.get(p, d, at - before, take);
            }
            advance(take);
            p += take;
        }
    }

    /** The frame is complete: its header must agree with the map; it then says the frame's length as it lies. */
    public FrameBuffer finish() {
        if (FrameBuffer.getInt(d, 0) != total || d[Frame.OFF_KIND] != kind
                || FrameBuffer.getInt(d, Frame.OFF_CALL_ID) != callId) {
            throw new IllegalArgumentException("its header disagrees with its map (length "
                    + FrameBuffer.getInt(d, 0) + ", kind " + d[Frame.OFF_KIND] + " against " + total + ", " + kind
                    + ")");
        }
        dst.putInt(0, dst.length()); // the frame as it now lies, its arrays apart
        return dst;
    }

    /**
     * Copies {@code bytes} bytes of src from {@code at}, in {@code order}, into array a (elements of {@code size}
     * bytes) from element {@code index}.
     */
    private static void fill(Object a, int index, int size, ByteBuffer src, int at, int bytes, ByteOrder order) {
        if (src.hasArray() && order == ByteOrder.nativeOrder()) { // one memory copy (the views go element-wise)
            PrimitiveArrays.read(src.array(), src.arrayOffset() + at, a, index * size, bytes);
        } else {
            PrimitiveArrays.read(src.duplicate().order(order).position(at), a, index * size, bytes);
        }
    }
}
