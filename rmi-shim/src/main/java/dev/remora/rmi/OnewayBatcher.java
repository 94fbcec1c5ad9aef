package dev.remora.rmi;

import dev.remora.rmi.jdk.SystemThreads;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * remora.async.batch: one daemon thread per JVM that sends the one-way calls a client connection holds back
 * ({@link ClientConnection#sendOneway}) about {@link #DELAY_NANOS} after the first of them, unless a caller sent them
 * sooner: any other frame of the connection goes after them and takes them along, and a run reaching {@link #BYTES}
 * is sent by the caller that filled it. So a caller of one-way calls that is faster than the wire pays a copy per
 * call, not a system call, and the calls of one run reach the server in one read.
 */
final class OnewayBatcher implements Runnable {
    /** How long a held-back run of one-way calls may wait for more (the timer's slack comes on top). */
    static final long DELAY_NANOS = TimeUnit.MICROSECONDS.toNanos(20);
    /** A run at least this long is sent at once. */
    static final int BYTES = 32 * 1024;

    private static final ConcurrentLinkedQueue<ClientConnection> DUE = new ConcurrentLinkedQueue<>();
    private static final Object START = new Object();
    private static volatile Thread thread;

    private OnewayBatcher() {
    }

    /** {@code c} started holding back a run: sent within the delay (one entry per run, not per call). */
    static void due(ClientConnection c) {
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
        LockSupport.unpark(t);
    }

    @Override
    public void run() {
        while (true) {
            ClientConnection c = DUE.poll();
            if (c == null) {
                LockSupport.park(this);
                continue;
            }
            LockSupport.parkNanos(this, DELAY_NANOS);
            do {
                c.flushOneways();
            } while ((c = DUE.poll()) != null);
        }
    }
}
