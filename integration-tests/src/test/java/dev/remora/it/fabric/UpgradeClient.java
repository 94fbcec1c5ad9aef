package dev.remora.it.fabric;

import dev.remora.it.app.Calc;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.concurrent.TimeUnit;

/**
 * {@code UpgradeClient <registryPort> <seconds> [threads [pauseMicros [callback [n [minCalls]]]]]}: calls
 * {@code add} on the "calc" object from three threads (or that many) for that long, each thread pausing that long
 * between its calls (default none), each result checked, then prints {@code CALLS n}: the calls before, during and
 * after the connection moves to fabric (remora.fabric.upgrade). With {@code callback}, each call is
 * {@code callback(cb, n)} instead (n = 1 unless given), which the server serves by calling this JVM's {@code cb} back
 * n times. With minCalls, the threads go on after that time until they have made that many calls together (90 s at
 * most): a test that needs so many calls still gets them on a slow or busy machine. Exits 1 at the first wrong result
 * or exception.
 */
public final class UpgradeClient {
    /** Answers {@code i + 7}. */
    static final class Tick implements Calc.Callback {
        @Override
        public int tick(int i) {
            return i + 7;
        }
    }

    public static void main(String[] args) throws Exception {
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("calc");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Integer.parseInt(args[1]));
        long[] counts = new long[args.length > 2 ? Integer.parseInt(args[2]) : 3];
        long pauseNanos = args.length > 3 ? TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[3])) : 0;
        Tick tick = new Tick(); // kept reachable until the end: its export is weak
        Calc.Callback cb = args.length > 4 && args[4].equals("callback")
                ? (Calc.Callback) UnicastRemoteObject.exportObject(tick, 0) : null;
        int n = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        long minCalls = args.length > 6 ? Long.parseLong(args[6]) : 0;
        long last = end + TimeUnit.SECONDS.toNanos(90);
        java.util.concurrent.atomic.AtomicLong made = new java.util.concurrent.atomic.AtomicLong();
        Thread[] ts = new Thread[counts.length];
        for (int t = 0; t < ts.length; t++) {
            int me = t;
            ts[t] = new Thread(() -> {
                int i = 0;
                try {
                    for (long now = System.nanoTime(); now < end || made.get() < minCalls && now < last;
                            now = System.nanoTime()) {
                        int r = cb == null ? calc.add(i, me) : calc.callback(cb, n);
                        int expected = cb == null ? i + me : 7 * n + n * (n - 1) / 2;
                        if (r != expected) {
                            System.out.println("FAILED call " + i + " of thread " + me + ": " + r + ", not "
                                    + expected);
                            System.exit(1);
                        }
                        i++;
                        counts[me]++;
                        made.incrementAndGet();
                        if (pauseNanos > 0) {
                            java.util.concurrent.locks.LockSupport.parkNanos(pauseNanos);
                        }
                    }
                } catch (Exception e) {
                    System.out.println("FAILED " + e);
                    System.exit(1);
                }
            });
            ts[t].start();
        }
        long total = 0;
        for (int t = 0; t < ts.length; t++) {
            ts[t].join();
            total += counts[t];
        }
        System.out.println("CALLS " + total);
        if (cb != null) {
            UnicastRemoteObject.unexportObject(tick, true);
        }
    }
}
