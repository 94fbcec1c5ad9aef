package dev.remora.rmi.transport;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * {@code remora.debug.faults=send} (tests): the first call frame and the first one-way frame this JVM's links send
 * fail partway, as a bug in Remora's send path would (over a socket the peer gets the frame's head and then the end
 * of the connection; over fabric nothing). The links turn it into {@link Link.NotSent}, as any failure of their own.
 * Once of each: a one-way call is left to JRMP only when no earlier one-way call of its connection is unconfirmed,
 * which the first one of a JVM never is.
 */
public final class SendFaults {
    private static boolean on; // set by the router's constructor, before any link exists
    private static final AtomicBoolean CALL_FAILED = new AtomicBoolean();
    private static final AtomicBoolean ONEWAY_FAILED = new AtomicBoolean();

    private SendFaults() {
    }

    /** From now on (the router of a JVM run with remora.debug.faults=send). */
    public static void enable() {
        on = true;
    }

    /** Whether the send of {@code frame} must fail: the JVM's first call frame, and its first one-way frame. */
    public static boolean due(FrameBuffer frame) {
        if (!on) {
            return false;
        }
        byte kind = frame.array()[Frame.OFF_KIND];
        return kind == Frame.CALL ? CALL_FAILED.compareAndSet(false, true)
                : kind == Frame.ONEWAY && ONEWAY_FAILED.compareAndSet(false, true);
    }

    /** What a due send throws, once part of the frame is out. */
    public static RuntimeException fault() {
        return new IllegalStateException("fault injected while sending a frame (remora.debug.faults=send)");
    }
}
