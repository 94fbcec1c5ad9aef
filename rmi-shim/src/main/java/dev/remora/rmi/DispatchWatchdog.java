package dev.remora.rmi;

import dev.remora.rmi.jdk.SystemThreads;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * For {@code remora.dispatch=auto}: one daemon thread per JVM that looks, every half hand-off time, for a server
 * connection whose reading thread has been running a call for longer than the hand-off time, and gives reading of
 * that connection to a pool thread ({@link ServerConnection#handOffIfStuck}). Short calls thus run on the thread
 * that read them, with no thread switch, as Manta's upcalls do ("Manta" §2.2), and a call that blocks (a callback
 * into the client, a lock, a long computation) holds up the other calls of its connection for about one hand-off
 * time only.
 *
 * <p>Idle cost: after {@value #QUIET_CHECKS} checks that saw no call start, the thread parks until a reader enters
 * a call and wakes it ({@link #parked} is read by the reader after it publishes its state, and the state is read by
 * this thread after it sets {@link #parked}: with volatiles one of the two sees the other, so no call goes
 * unwatched).
 */
final class DispatchWatchdog implements Runnable {
    private static final int QUIET_CHECKS = 64;
    private static final Set<ServerConnection> LIVE = ConcurrentHashMap.newKeySet();
    private static final Object START = new Object();
    private static volatile Thread thread;
    /** True while the watchdog sleeps with no deadline; a reader that enters a call then wakes it. */
    static volatile boolean parked;

    private DispatchWatchdog() {
    }

    static void register(ServerConnection c) {
        LIVE.add(c);
        Thread t = thread;
        if (t == null) {
            synchronized (START) {
                t = thread;
                if (t == null) {
                    t = SystemThreads.newThread(new DispatchWatchdog(), "remora-dispatch-watchdog", true);
                    t.start();
                    thread = t;
                }
            }
        }
        LockSupport.unpark(t);
    }

    static void unregister(ServerConnection c) {
        LIVE.remove(c);
    }

    /** Called by a reader that entered a call and saw {@link #parked}. */
    static void wake() {
        Thread t = thread;
        if (t != null) {
            LockSupport.unpark(t);
        }
    }

    /** Connections being watched (for tests). */
    static int watched() {
        return LIVE.size();
    }

    @Override
    public void run() {
        long lastStarted = -1;
        int quiet = 0;
        while (true) {
            long now = System.nanoTime();
            long started = 0;
            long period = Long.MAX_VALUE;
            boolean busy = false;
            for (ServerConnection c : LIVE) {
                try {
                    started += c.upcallsStarted();
                    period = Math.min(period, c.handoffNanos() / 2);
                    if (c.inUpcall()) {
                        busy = true;
                        c.handOffIfStuck(now);
                    }
                } catch (RuntimeException | Error e) {
                    // never let one connection stop the watch over the others (handOffIfStuck handles its own)
                }
            }
            quiet = busy || started != lastStarted ? 0 : quiet + 1;
            lastStarted = started;
            if (LIVE.isEmpty() || quiet >= QUIET_CHECKS) {
                parked = true;
                if (!anyInUpcall()) {
                    LockSupport.park(this);
                }
                parked = false;
                quiet = 0;
                lastStarted = -1;
            } else {
                LockSupport.parkNanos(this, period);
            }
        }
    }

    private static boolean anyInUpcall() {
        for (ServerConnection c : LIVE) {
            if (c.inUpcall()) {
                return true;
            }
        }
        return false;
    }
}
