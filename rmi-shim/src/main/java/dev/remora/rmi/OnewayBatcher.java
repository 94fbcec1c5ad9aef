package dev.remora.rmi;

import dev.remora.rmi.jdk.SystemThreads;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * remora.async.batch and remora.future.batch: one daemon thread per JVM that sends the frames a connection holds back
 * (a client's one-way and future calls, {@link ClientConnection#sendOneway}, {@link ClientConnection#sendFuture}; a
 * server's replies to future calls, {@link ServerConnection#reply}) about {@link #DELAY_NANOS} after the first of them,
 * unless they were sent sooner: any other frame of the connection goes after them and takes them along, and a run
 * reaching {@link #BYTES} is sent by the thread that filled it. So a caller of one-way calls that is faster than the
 * wire pays a copy per call, not a system call, and the calls of one run reach the server in one read.
 */
final class OnewayBatcher implements Runnable {
    /** A connection that holds frames back. */
    interface Holder {
        /** Sends the frames held back, if any. */
        void flushHeld();
    }

    /** How long a held-back run of one-way calls may wait for more (the timer's slack comes on top). */
    static final long DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** A run at least this long is sent at once. */
    static final int BYTES = 32 * 1024;

    private static final ConcurrentLinkedQueue<Holder> DUE = new ConcurrentLinkedQueue<>();
    private static final Object START = new Object();
    private static volatile Thread thread;
    /** The thread waits for a first run (unpark it then), not in a run's delay (an unpark would cut that short). */
    private static volatile boolean idle;

    private OnewayBatcher() {
    }

    /** {@code c} started holding back a run: sent within the delay (one entry per run, not per call). */
    static void due(Holder c) {
        DUE.add(c);
        Thread t = thread;
        if (t == null) {
            synchronized (START) {
                t = thread;
                if (t == null) {
                    t = SystemThreads.newThread(new OnewayBatcher(), "remora-oneway-batcher", true);
                    t.start();
                    thread = t;
                }
            }
        }
        if (idle) {
            LockSupport.unpark(t);
        }
    }

    @Override
    public void run() {
        while (true) {
            Holder c = DUE.poll();
            if (c == null) {
                idle = true;
                if (DUE.isEmpty()) { // after idle is set: a due() that saw it false has queued its holder by now
                    LockSupport.park(this);
                }
                idle = false;
                continue;
            }
            // The whole delay: a permit left by an earlier unpark must not end it at once (it did, and a caller
            // faster than the wire then sent its calls one or two per write)
            long deadline = System.nanoTime() + DELAY_NANOS;
            for (long left = DELAY_NANOS; left > 0; left = deadline - System.nanoTime()) {
                LockSupport.parkNanos(this, left);
            }
            do {
                c.flushHeld();
            } while ((c = DUE.poll()) != null);
        }
    }
}
