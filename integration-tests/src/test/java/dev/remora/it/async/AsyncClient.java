package dev.remora.it.async;

import java.lang.reflect.Proxy;
import java.lang.reflect.UndeclaredThrowableException;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.rmi.RemoteException;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code AsyncClient <registryPort> async|sync} runs a session against {@link AsyncServer} and prints one OK line per
 * step (FUTURES: ten futures of one thread run at once on the server): async expects Remora's asynchronous calls (the agent on both sides), sync plain RMI's synchronous ones (no
 * agent here), with the same results. {@code AsyncClient <registryPort> kill <file>} leaves one-way calls, a
 * future and a {@code Remora.async} task pending, prints PENDING, waits for {@code file} (the test kills the server first), then checks that the next
 * call and the future throw RemoteExceptions. {@code AsyncClient <registryPort> fault}: one thread's one-way calls when
 * Remora fails to send frames ({@link #fault}). Exits 1 at the first surprise.
 */
public final class AsyncClient {
    public static void main(String[] args) throws Exception {
        Ledger ledger = (Ledger) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("ledger");
        String mode = args[1];
        ledger.entries(-1); // the first call: synchronous, its reply tells the client what is asynchronous
        if (mode.equals("kill")) {
            kill(ledger, args[2]);
            return;
        }
        if (mode.equals("fault")) {
            fault(ledger);
            return;
        }
        boolean async = mode.equals("async");
        order(ledger);
        try {
            ledger.boom("kaboom");
            check(async, "boom threw nothing on plain RMI");
        } catch (IllegalStateException e) {
            check(!async, "a one-way call's exception reached the caller: " + e);
        }
        System.out.println("BOOM-OK");
        long t0 = System.nanoTime();
        // the server takes 1.5 s; the future comes back well before (its first use makes a proxy class: up to a few
        // hundred ms on a loaded machine)
        Ledger.Summary s = ledger.summary("sum", 1500);
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        check(Proxy.isProxyClass(s.getClass()) == async, "summary returned a " + s.getClass());
        check(async ? took < 1000 : took >= 1500, "summary took " + took + " ms");
        Ledger.SummaryImpl same = new Ledger.SummaryImpl("sum");
        check(s.name().equals("sum"), "name " + s.name());
        check(s.equals(same) && s.hashCode() == same.hashCode() && s.toString().equals("Summary[sum]"),
                "equals/hashCode/toString of " + s);
        System.out.println("FUTURE-OK");
        futures(ledger, async);
        check(ledger.total() == 8 * 300, "total " + ledger.total());
        System.out.println("TOTAL-OK");
    }

    /**
     * Ten futures of 200 ms each from this one thread, used afterwards: with the agent the server runs them at once
     * (well under the 2 s they take one after another), each result in its own future.
     */
    private static void futures(Ledger ledger, boolean async) throws Exception {
        int n = 10;
        long t0 = System.nanoTime();
        Ledger.Summary[] rs = new Ledger.Summary[n];
        for (int i = 0; i < n; i++) {
            rs[i] = ledger.summary("c" + i, 200);
        }
        for (int i = 0; i < n; i++) {
            check(rs[i].name().equals("c" + i), "future " + i + " is " + rs[i].name());
        }
        long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
        check(async ? took < 1000 : took >= n * 200, n + " futures of 200 ms took " + took + " ms");
        System.out.println("FUTURES-OK");
    }

    private static void order(Ledger ledger) throws Exception {
        int threads = 8;
        int calls = 300;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<String>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int me = t;
            done.add(pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    ledger.add(me, i);
                }
                int[] seen = ledger.entries(me);
                if (seen.length != calls) {
                    return "thread " + me + " saw " + seen.length + " of its calls run";
                }
                for (int i = 0; i < calls; i++) {
                    if (seen[i] != i) {
                        return "thread " + me + ": entry " + i + " is call " + seen[i];
                    }
                }
                return null;
            }));
        }
        for (Future<String> f : done) {
            String problem = f.get(60, TimeUnit.SECONDS);
            check(problem == null, problem);
        }
        pool.shutdown();
        System.out.println("ORDER-OK");
    }

    /**
     * With remora.debug.faults=send here: the first call frame (entries(-1) above) and the first one-way frame fail to
     * leave, and both calls go by JRMP; one thread's one-way calls all run, in its order.
     */
    private static void fault(Ledger ledger) throws Exception {
        int calls = 50;
        for (int i = 0; i < calls; i++) {
            ledger.add(0, i);
        }
        int[] seen = ledger.entries(0);
        check(seen.length == calls, seen.length + " of " + calls + " one-way calls ran");
        for (int i = 0; i < calls; i++) {
            check(seen[i] == i, "entry " + i + " is call " + seen[i]);
        }
        System.out.println("FAULT-OK");
    }

    private static void kill(Ledger ledger, String file) throws Exception {
        Ledger.Summary late = ledger.summary("late", 10_000);
        java.util.concurrent.CompletableFuture<String> gate = dev.remora.api.Remora.async(() -> ledger.gate("never"));
        for (int i = 0; i < 5; i++) {
            ledger.slow(300);
        }
        System.out.println("PENDING");
        System.out.flush();
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (!Files.exists(Paths.get(file))) {
            check(System.nanoTime() < deadline, "the test never killed the server");
            Thread.sleep(20);
        }
        Thread.sleep(200);
        try {
            ledger.entries(0);
            check(false, "a call after the server died returned");
        } catch (RemoteException e) {
            System.out.println(("LOST-OK " + e).replace('\n', ' '));
        }
        try {
            late.name();
            check(false, "a future of a dead server gave a result");
        } catch (UndeclaredThrowableException e) {
            check(e.getCause() instanceof RemoteException, "the future threw " + e.getCause());
            System.out.println(("FUTURE-DEAD-OK " + e.getCause()).replace('\n', ' '));
        }
        try {
            gate.get(60, TimeUnit.SECONDS);
            check(false, "a Remora.async future of a dead server gave a result");
        } catch (java.util.concurrent.ExecutionException e) {
            check(e.getCause() instanceof RemoteException, "the Remora.async future threw " + e.getCause());
            System.out.println(("API-DEAD-OK " + e.getCause()).replace('\n', ' '));
        }
    }

    private static void check(boolean ok, String problem) {
        if (!ok) {
            System.out.println("FAILED " + problem);
            System.out.flush();
            System.exit(1);
        }
    }
}
