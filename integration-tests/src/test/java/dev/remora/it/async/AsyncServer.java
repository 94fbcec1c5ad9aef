package dev.remora.it.async;

import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/** {@code AsyncServer <registryPort> <objectPort>}: exports a {@link Ledger}, binds it as "ledger", prints READY. */
public final class AsyncServer implements Ledger {
    private final Map<Integer, List<Integer>> log = new ConcurrentHashMap<>();
    private final AtomicInteger total = new AtomicInteger();

    public static void main(String[] args) throws Exception {
        AsyncServer impl = new AsyncServer();
        Ledger stub = (Ledger) UnicastRemoteObject.exportObject(impl, Integer.parseInt(args[1]));
        LocateRegistry.createRegistry(Integer.parseInt(args[0])).rebind("ledger", stub);
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }

    @Override
    public void add(int thread, int seq) {
        log.computeIfAbsent(thread, t -> new CopyOnWriteArrayList<>()).add(seq);
        total.incrementAndGet();
    }

    @Override
    public int[] entries(int thread) {
        List<Integer> l = log.getOrDefault(thread, List.of());
        int[] a = new int[l.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = l.get(i);
        }
        return a;
    }

    @Override
    public void boom(String message) {
        throw new IllegalStateException(message);
    }

    @Override
    public void slow(int millis) {
        nap(millis);
    }

    @Override
    public Summary summary(String name, int millis) {
        nap(millis);
        return new SummaryImpl(name);
    }

    private final Map<String, java.util.concurrent.CountDownLatch> gates = new ConcurrentHashMap<>();

    private java.util.concurrent.CountDownLatch latch(String key) {
        return gates.computeIfAbsent(key, k -> new java.util.concurrent.CountDownLatch(1));
    }

    @Override
    public String gate(String key) {
        try {
            if (!latch(key).await(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("gate " + key + " was never opened");
            }
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
        return key + "-opened";
    }

    @Override
    public void open(String key) {
        latch(key).countDown();
    }

    @Override
    public int total() {
        return total.get();
    }

    private static void nap(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
