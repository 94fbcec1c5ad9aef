package dev.remora.rmi;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.io.EOFException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;

/**
 * A tracing agent's context, carried with Remora's calls as that agent carries it with JRMP's (remora.tracing).
 * OpenTelemetry's Java agent sends the caller's context in a call of its own on a JRMP connection before each traced
 * call, and its server advice starts a remote method's span from it; Remora's calls make no such call, so without
 * this a server would record no span for them, and traces would stop at the client. Here the client captures the
 * context as the agent's configured propagators write it (text pairs: W3C {@code traceparent}, {@code baggage}, ...)
 * and sends the pairs in the call frame ({@link Frame#FLAG_CONTEXT}); the server hands them to the agent just before
 * the method runs, where the agent's advice looks for them.
 *
 * <p>Never fails a call: a context that cannot be captured or handed over is left out, said once, and the call goes
 * on. The pairs are text and never deserialized objects.
 */
abstract class TraceContext {
    /** At most this many pairs are sent; more are left out. */
    static final int MAX_PAIRS = 32;
    /** A section (its length field excluded) above this is not sent; propagators write a few hundred bytes. */
    static final int MAX_BYTES = 8192;

    /**
     * The calling thread's context as text pairs (key, value, key, value, ...) to send with a call, or null when there
     * is none to send (no agent span, or capture failed). Never throws.
     */
    abstract String[] capture();

    /** Before the remote method runs on this thread: hands the agent the caller's context. Never throws. */
    abstract void enter(String[] pairs);

    /** After the method ran: takes back what {@link #enter} left if the agent's advice did not take it. */
    abstract void exit();

    /** What this context comes from, for messages. */
    abstract String name();

    /**
     * The context of a tracing agent that runs in this JVM, or null when none does (the only one known is
     * OpenTelemetry's Java agent; {@code listener} hears once why it cannot be used, if so).
     */
    static TraceContext find(RouterListener listener) {
        return OtelTraceContext.find(listener);
    }

    /**
     * Writes the section {@code pairs} after a call's header: its length (2 bytes, unsigned) then, per pair, each
     * string's length (2 bytes) and UTF-8 bytes. Returns false (nothing written) when it would exceed the bounds.
     */
    static boolean write(FrameBuffer out, String[] pairs) {
        int n = Math.min(pairs.length & ~1, 2 * MAX_PAIRS);
        byte[][] bytes = new byte[n][];
        int length = 0;
        for (int i = 0; i < n; i++) {
            bytes[i] = pairs[i].getBytes(StandardCharsets.UTF_8);
            length += 2 + bytes[i].length;
            if (length > MAX_BYTES) {
                return false;
            }
        }
        out.writeShort(length);
        for (byte[] b : bytes) {
            out.writeShort(b.length);
            out.write(b);
        }
        return true;
    }

    /**
     * Reads the section at {@code in}'s position and leaves the position after it. Returns the pairs, or null when the
     * section is malformed inside its length (the call then runs without it).
     *
     * @throws EOFException the section's length runs past the frame (the frame is malformed: so is the call)
     */
    static String[] read(FrameBuffer in) throws EOFException {
        int length = in.readShort() & 0xffff;
        int start = in.position();
        if (length > in.remaining()) {
            throw new EOFException("a call's trace context section (" + length + " bytes) runs past its frame ("
                    + in.remaining() + " bytes left)");
        }
        int end = start + length;
        byte[] a = in.array();
        String[] pairs = new String[8];
        int n = 0;
        int at = start;
        while (at < end) {
            if (end - at < 2) {
                in.position(end);
                return null;
            }
            int len = FrameBuffer.getShort(a, at) & 0xffff;
            at += 2;
            if (len > end - at || n == 2 * MAX_PAIRS) {
                in.position(end);
                return null;
            }
            if (n == pairs.length) {
                pairs = Arrays.copyOf(pairs, 2 * n);
            }
            pairs[n++] = new String(a, at, len, StandardCharsets.UTF_8);
            at += len;
        }
        in.position(end);
        return n == 0 || (n & 1) != 0 ? null : Arrays.copyOf(pairs, n);
    }
}
