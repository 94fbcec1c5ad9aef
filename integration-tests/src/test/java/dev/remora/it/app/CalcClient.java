package dev.remora.it.app;

import java.io.Serializable;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code CalcClient <registryPort> <rounds>}: a scripted session against {@link CalcServer}. Prints one line per
 * observable result, so two runs (with and without the agent) can be compared line by line, and a last line
 * {@code calls N} with the number of remote calls it made on the Calc stubs (registry lookups not included).
 */
public final class CalcClient {
    private static int calls;

    /** A value object with sharing and a cycle, to compare by content. */
    static final class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        int value;
        Node left;
        Node right;
        Node parent;

        static Node tree(int depth, int[] next, Node parent) {
            if (depth == 0) {
                return null;
            }
            Node n = new Node();
            n.parent = parent;
            n.left = tree(depth - 1, next, n);
            n.value = next[0]++;
            n.right = tree(depth - 1, next, n);
            return n;
        }

        @Override
        public String toString() {
            boolean parentsOk = (left == null || left.parent == this) && (right == null || right.parent == this);
            return "(" + left + " " + value + (parentsOk ? "" : "!") + " " + right + ")";
        }
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        int rounds = Integer.parseInt(args[1]);
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", port).lookup("calc");

        long sum = 0;
        for (int i = 0; i < rounds; i++) {
            sum += calc.add(i, 1);
            calls++;
            calc.ping();
            calls++;
        }
        out("add-sum " + sum);
        out("echo-null " + echo(calc, null));
        out("echo-string " + echo(calc, "h\u00e9llo"));
        out("echo-ints " + Arrays.toString((int[]) echo(calc, new int[] {1, 2, 3})));
        out("echo-floats " + Arrays.toString((float[]) echo(calc, new float[] {1.5f, -2f})));
        Map<String, List<Integer>> map = new HashMap<>();
        map.put("a", new ArrayList<>(Arrays.asList(1, 2)));
        out("echo-map " + echo(calc, map));
        out("echo-tree " + echo(calc, Node.tree(4, new int[1], null)));
        Object[] shared = new Object[2];
        shared[0] = "x";
        shared[1] = shared;
        Object[] back = (Object[]) echo(calc, shared);
        out("echo-cycle " + back[0] + " " + (back[1] == back));
        for (String kind : new String[] {"declared", "runtime", "error"}) {
            try {
                calls++;
                calc.fail(kind);
                out("fail-" + kind + " returned");
            } catch (Exception e) {
                Throwable cause = e.getCause();
                out("fail-" + kind + " " + e.getClass().getName() + (cause == null ? "" : " caused by "
                        + cause.getClass().getName() + ": " + cause.getMessage()));
            }
        }
        calls++;
        String host = calc.clientHost();
        out("client-host " + (host.equals("127.0.0.1") || host.equals("localhost") ? "loopback" : host));

        Calc.Callback cb = i -> i * 2;
        Calc.Callback cbStub = (Calc.Callback) UnicastRemoteObject.exportObject(cb, 0);
        calls++;
        out("callback " + calc.callback(cbStub, 10));
        UnicastRemoteObject.unexportObject(cb, true);

        calls++;
        Calc.Counter counter = calc.newCounter();
        int last = 0;
        for (int i = 0; i < 5; i++) {
            calls++;
            last = counter.increment();
        }
        out("counter " + last);

        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<Long>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            final int base = t * 1000;
            futures.add(pool.submit(() -> {
                long s = 0;
                for (int i = 0; i < 50; i++) {
                    s += calc.add(base, i);
                }
                return s;
            }));
        }
        long threaded = 0;
        for (Future<Long> f : futures) {
            threaded += f.get();
        }
        calls += 200;
        pool.shutdown();
        out("threads " + threaded);
        out("calls " + calls);
        System.exit(0);
    }

    private static Object echo(Calc calc, Object o) throws Exception {
        calls++;
        return calc.echo(o);
    }

    private static void out(String line) {
        System.out.println(line);
    }
}
