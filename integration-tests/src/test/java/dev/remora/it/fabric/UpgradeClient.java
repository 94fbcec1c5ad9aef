package dev.remora.it.fabric;

import dev.remora.it.app.Calc;
import java.rmi.registry.LocateRegistry;
import java.util.concurrent.TimeUnit;

/**
 * {@code UpgradeClient <registryPort> <seconds> [threads [pauseMicros]]}: calls {@code add} on the "calc" object from
 * three threads (or that many) for that long, each thread pausing that long between its calls (default none), each
 * result checked, then prints {@code CALLS n}: the calls before, during and after the connection moves to fabric
 * (remora.fabric.upgrade). Exits 1 at the first wrong result or exception.
 */
public final class UpgradeClient {
    public static void main(String[] args) throws Exception {
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("calc");
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(Integer.parseInt(args[1]));
        long[] counts = new long[args.length > 2 ? Integer.parseInt(args[2]) : 3];
        long pauseNanos = args.length > 3 ? TimeUnit.MICROSECONDS.toNanos(Long.parseLong(args[3])) : 0;
        Thread[] ts = new Thread[counts.length];
        for (int t = 0; t < ts.length; t++) {
            int me = t;
            ts[t] = new Thread(() -> {
                int i = 0;
                try {
                    while (System.nanoTime() < end) {
                        int r = calc.add(i, me);
                        if (r != i + me) {
                            System.out.println("FAILED add(" + i + ", " + me + ") = " + r);
                            System.exit(1);
                        }
                        i++;
                        counts[me]++;
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
    }
}
