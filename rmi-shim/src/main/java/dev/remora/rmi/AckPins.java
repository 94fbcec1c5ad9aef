package dev.remora.rmi;

import dev.remora.rmi.jdk.SystemThreads;
import java.rmi.Remote;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;

/**
 * One server connection's remote objects sent in results, kept reachable until the client acknowledges the result
 * (its references are registered with the DGC by then), as JRMP's {@code DGCAckHandler} keeps them: released by the
 * client's ACK, by the end of the connection, or, as JRMP does, once its ack timeout
 * ({@code sun.rmi.dgc.ackTimeout}, 5 minutes) has passed without one. A client that could not acknowledge (its
 * connection half broken, its process stuck) thus never pins an object for as long as the connection lives.
 *
 * <p>Only results that carry exported objects get here, so the timer task per pin (JRMP schedules one too) is off the
 * ordinary call's path.
 */
final class AckPins {
    /** The timer of all connections: one daemon thread, made when first needed and gone when idle. */
    private static final class Timer {
        static final ScheduledThreadPoolExecutor EXECUTOR = make();

        private static ScheduledThreadPoolExecutor make() {
            ScheduledThreadPoolExecutor e = new ScheduledThreadPoolExecutor(1,
                    r -> SystemThreads.newThread(r, "remora-dgc-ack", true));
            e.setRemoveOnCancelPolicy(true); // an acknowledged pin leaves the queue at once
            e.setKeepAliveTime(60, TimeUnit.SECONDS);
            e.allowCoreThreadTimeOut(true);
            return e;
        }
    }

    /** The objects of one result; drops them on its timeout. */
    private final class Pin implements Runnable {
        final int callId;
        List<Remote> objects;
        ScheduledFuture<?> timeout;

        Pin(int callId, List<Remote> objects) {
            this.callId = callId;
            this.objects = objects;
        }

        @Override
        public void run() {
            pins.remove(callId, this);
            drop();
        }

        synchronized void drop() {
            objects = null;
        }

        synchronized void cancel() {
            objects = null;
            if (timeout != null) {
                timeout.cancel(false);
                timeout = null;
            }
        }

        synchronized void schedule(long millis) {
            if (objects != null) { // not acknowledged already
                timeout = Timer.EXECUTOR.schedule(this, millis, TimeUnit.MILLISECONDS);
            }
        }
    }

    private final RouterOptions options;
    private final Map<Integer, Pin> pins = new ConcurrentHashMap<>();

    AckPins(RouterOptions options) {
        this.options = options;
    }

    /** Keeps {@code objects} reachable until {@link #acknowledged}{@code (callId)}, the timeout or {@link #clear}. */
    void pin(int callId, List<Remote> objects) {
        Pin p = new Pin(callId, objects);
        Pin old = pins.put(callId, p);
        if (old != null) {
            old.cancel();
        }
        p.schedule(options.dgcAckTimeout()); // read as late as JRMP reads it: at the first result that needs it
    }

    /** The client acknowledged the result of {@code callId} (or it was never sent): its objects are let go. */
    void acknowledged(int callId) {
        Pin p = pins.remove(callId);
        if (p != null) {
            p.cancel();
        }
    }

    /** The connection ended: every pin is let go. */
    void clear() {
        for (Pin p : pins.values()) {
            p.cancel();
        }
        pins.clear();
    }

    /** Results waiting for their acknowledgment (for tests). */
    int size() {
        return pins.size();
    }
}
