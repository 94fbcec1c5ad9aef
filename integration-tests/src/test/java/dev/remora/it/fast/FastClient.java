package dev.remora.it.fast;

import dev.remora.it.app.Calc;
import java.io.Serializable;
import java.rmi.registry.LocateRegistry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * {@code FastClient <registryPort> <rounds>}: the same kinds of values again and again against
 * {@link dev.remora.it.app.CalcServer} (so a per-connection type cache has something to keep): a 32-int object, a
 * tree with parent links, lists of points, exceptions, remote objects both ways, from several threads. One line per
 * observable result; the last line is {@code calls N}.
 */
public final class FastClient {
    private static int calls;

    static final class Ints implements Serializable {
        private static final long serialVersionUID = 1L;
        int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15;
        int i16, i17, i18, i19, i20, i21, i22, i23, i24, i25, i26, i27, i28, i29, i30, i31;

        Ints(int v) {
            i0 = v;
            i31 = -v;
            i17 = v * 3;
        }

        @Override
        public String toString() {
            return "Ints(" + i0 + "," + i17 + "," + i31 + ")";
        }
    }

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
            boolean ok = (left == null || left.parent == this) && (right == null || right.parent == this);
            return "(" + left + " " + value + (ok ? "" : "!") + " " + right + ")";
        }
    }

    static final class Point implements Serializable {
        private static final long serialVersionUID = 1L;
        final double x;
        final double y;

        Point(double x, double y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public String toString() {
            return x + ":" + y;
        }
    }

    public static void main(String[] args) throws Exception {
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("calc");
        int rounds = Integer.parseInt(args[1]);
        for (int r = 0; r < rounds; r++) {
            out("ints " + echo(calc, new Ints(r)));
            out("tree " + echo(calc, Node.tree(3, new int[] {r}, null)));
            List<Point> pts = new ArrayList<>();
            for (int i = 0; i < 3; i++) {
                pts.add(new Point(r, i));
            }
            out("points " + echo(calc, pts));
            Object[] mixed = {r, "s" + r, (long) r, new int[] {r}, null};
            out("mixed " + Arrays.deepToString((Object[]) echo(calc, mixed)));
        }
        for (int r = 0; r < 5; r++) {
            for (String kind : new String[] {"declared", "runtime"}) {
                try {
                    calls++;
                    calc.fail(kind);
                    out("fail returned");
                } catch (Exception e) {
                    out("fail-" + kind + " " + e.getClass().getName() + ": " + e.getMessage());
                }
            }
        }
        Calc.Callback cb = i -> i + 1;
        Calc.Callback stub = (Calc.Callback) UnicastRemoteObject.exportObject(cb, 0);
        for (int r = 0; r < 3; r++) {
            calls++;
            out("callback " + calc.callback(stub, 5));
            calls++;
            Calc.Counter c = calc.newCounter();
            calls++;
            out("counter " + c.increment());
        }
        UnicastRemoteObject.unexportObject(cb, true);
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<String>> fs = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            int base = t * 100;
            fs.add(pool.submit(() -> {
                StringBuilder sb = new StringBuilder();
                for (int i = 0; i < 25; i++) {
                    Object v = (i % 2 == 0) ? new Ints(base + i) : new Point(base, i);
                    sb.append(calc.echo(v)).append(' ');
                }
                return sb.toString();
            }));
        }
        for (Future<String> f : fs) {
            out("thread " + f.get());
        }
        calls += 100;
        pool.shutdown();
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
