package dev.remora.serializer;

import java.lang.ref.WeakReference;

/**
 * The large array of a reused byte buffer (a connection's serializer output, the RMI shim's frame buffers), let go
 * of once its message is done and kept weakly for the next large one. A buffer that grew past {@link #KEEP} for one
 * message goes back to its first size: a thread or connection that once carried a large value does not keep its size
 * (JRMP keeps no buffer of a call's size once it is over), while repeated large messages reuse the array until the
 * collector next reclaims it. One owner, one thread at a time.
 */
public final class KeptBuffer {
    /** Bytes a buffer keeps strongly between messages. */
    public static final int KEEP = 256 * 1024;
    private WeakReference<byte[]> large;

    /** {@code buf} if it is at most {@link #KEEP} bytes; else keeps it weakly and returns a new {@code initial}. */
    public byte[] relax(byte[] buf, int initial) {
        if (buf.length <= KEEP) {
            return buf;
        }
        large = new WeakReference<>(buf);
        return new byte[initial];
    }

    /** The array {@link #relax} kept, taken back, if the collector left it and it holds {@code need} bytes; or null. */
    public byte[] take(long need) {
        WeakReference<byte[]> l = large;
        if (l == null) {
            return null;
        }
        large = null;
        byte[] b = l.get();
        return b != null && b.length >= need ? b : null;
    }
}
