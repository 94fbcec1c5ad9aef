package dev.remora.it.async;

import dev.remora.api.Remora;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * {@code ApiClient <registryPort> agent|plain}: the explicit API, {@code Remora.async(() -> ledger.m(x))}, against
 * {@link AsyncServer}, one OK line per step. {@code agent}: the agent on both sides, so tasks' calls are sent without
 * waiting (GATE: a call that waits on the server until this client's next call opens it; its future is not done when
 * async returns). {@code plain}: no agent here, {@code plain-agent}: none on the server, so every task runs at once
 * and its future is done when async returns; the same results. Exits 1 at the first surprise.
 */
public final class ApiClient {
    static final int MANY_THREADS = 4;
    static final int MANY_EACH = 50;

    public static void main(String[] args) throws Exception {
        Registry registry = LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0]));
        Ledger ledger = (Ledger) registry.lookup("ledger");
        boolean agent = args[1].equals("agent"); // plain-agent: the agent here, not on the server
        ledger.entries(-1);
        check(Remora.agentActive() == !args[1].equals("plain"), "Remora.agentActive() is " + Remora.agentActive());
        if (agent) {
            CompletableFuture<String> gate = Remora.async(() -> ledger.gate("g1"));
            check(!gate.isDone(), "the gate's future was done before the gate opened: " + gate);
            ledger.open("g1");
            check(gate.get(30, TimeUnit.SECONDS).equals("g1-opened"), "gate gave " + gate.join());
            System.out.println("GATE-OK");
        }
        many(ledger, agent);
        int before = ledger.total();
        CompletableFuture<Integer> total = Remora.async(() -> ledger.total());
        check(agent || total.isDone(), "a task ran without the agent and its future is not done");
        check(total.get(30, TimeUnit.SECONDS) == before, "total " + total.join() + ", expected " + before);
        System.out.println("INT-OK");
        CompletableFuture<Void> add = Remora.async(() -> ledger.add(77, 5));
        check(add.get(30, TimeUnit.SECONDS) == null, "a void call's future gave " + add.join());
        check(Arrays.equals(ledger.entries(77), new int[] {5}), "entries " + Arrays.toString(ledger.entries(77)));
        System.out.println("VOID-OK");
        CompletableFuture<Void> boom = Remora.async(() -> ledger.boom("api"));
        try {
            boom.get(30, TimeUnit.SECONDS);
            check(false, "boom's future completed");
        } catch (ExecutionException e) {
            check(e.getCause() instanceof IllegalStateException && e.getCause().getMessage().equals("api"),
                    "boom's future failed with " + e.getCause());
        }
        System.out.println("THROWS-OK");
        CompletableFuture<Integer> misuse = Remora.async(() -> ledger.total() + 1);
        if (agent) {
            try {
                misuse.get(30, TimeUnit.SECONDS);
                check(false, "a task that used the placeholder gave " + misuse.join());
            } catch (ExecutionException e) {
                check(e.getCause() instanceof IllegalStateException && e.getCause().getMessage().contains(
                        "must return the result of its remote call as it is"), "misuse failed with " + e.getCause());
            }
        } else {
            check(misuse.join() == before + 2, "total + 1 gave " + misuse.join());
        }
        System.out.println("MISUSE-OK");
        CompletableFuture<String[]> list = Remora.async(() -> registry.list());
        check(list.isDone() && Arrays.asList(list.join()).contains("ledger"), "registry.list() gave " + list);
        CompletableFuture<Integer> local = Remora.async(() -> 42);
        check(local.isDone() && local.join() == 42, "a task without a remote call gave " + local);
        System.out.println("SYNC-OK");
    }

    /** From several threads at once, tasks whose results must each come back to their own future. */
    private static void many(Ledger ledger, boolean agent) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(MANY_THREADS);
        List<Future<String>> done = new ArrayList<>();
        for (int t = 0; t < MANY_THREADS; t++) {
            int me = t;
            done.add(pool.submit(() -> {
                List<CompletableFuture<Ledger.Summary>> fs = new ArrayList<>();
                for (int i = 0; i < MANY_EACH; i++) {
                    String name = me + ":" + i;
                    fs.add(Remora.async(() -> ledger.summary(name, 0)));
                }
                for (int i = 0; i < MANY_EACH; i++) {
                    Ledger.Summary s = fs.get(i).get(30, TimeUnit.SECONDS);
                    // summary is remora.future on the server: the task's own choice wins, so the result is the
                    // object itself, not remora.future's proxy
                    if (!(s instanceof Ledger.SummaryImpl) || !s.name().equals(me + ":" + i)) {
                        return "thread " + me + " task " + i + " gave " + s + " (" + s.getClass() + ")";
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
        System.out.println("MANY-OK");
    }

    static void check(boolean ok, String problem) {
        if (!ok) {
            System.out.println("FAILED " + problem);
            System.out.flush();
            System.exit(1);
        }
    }
}
