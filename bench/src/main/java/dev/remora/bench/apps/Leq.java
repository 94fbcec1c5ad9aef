package dev.remora.bench.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Linear equations A x = b solved by Jacobi iteration, the broadcast-heavy app of the Manta RMI work: the dense,
 * diagonally dominant n x n matrix is split into row blocks; each iteration every rank computes its part of the new
 * x and sends it, with its largest change, to every other rank (one RMI per destination, a small {@link Part}
 * object holding a {@code double[]}), so that every rank holds the whole vector again and all stop in the same
 * iteration (largest change below {@code 1e-13}, or {@code iters}). Parameter {@code dom}: the diagonal is
 * (1 + dom/100) times the row's off-diagonal sum, so a small {@code dom} converges slowly (many iterations, many
 * broadcasts). Check: each rank's rows of the residual A x - b are below 1e-9 of b's largest element.
 */
public final class Leq implements App {

    /** The remote interface of an LEQ rank. */
    public interface Peer extends Remote {
        void putPart(int from, Part part) throws RemoteException;
    }

    /** One rank's new part of x in one iteration. */
    public static final class Part implements Serializable {
        private static final long serialVersionUID = 1L;
        final int iteration;
        final double change;
        final double[] x;

        Part(int iteration, double change, double[] x) {
            this.iteration = iteration;
            this.change = change;
            this.x = x;
        }
    }

    static final double TOLERANCE = 1e-13;

    private Mailbox<Part> box;
    private int n, lo, hi, iters, done;
    private double[][] a; // rows lo..hi-1
    private double[] b; // b[lo..hi-1]
    private double[] x;

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=48,dom=10,iters=2000", "comm", "n=256,dom=1,iters=8000",
                "compute", "n=5000,dom=8,iters=2000");
    }

    @Override
    public Remote peer(Ctx ctx) {
        box = new Mailbox<>(ctx.ranks);
        final Mailbox<Part> m = box;
        return new Peer() {
            @Override
            public void putPart(int from, Part part) {
                m.put(from, part);
            }
        };
    }

    static double[] row(int i, int n, int dom) {
        SplittableRandom rnd = new SplittableRandom(0x5EEDL * 31 + i);
        double[] r = new double[n];
        double sum = 0;
        for (int j = 0; j < n; j++) {
            if (j != i) {
                r[j] = rnd.nextDouble(); // all positive: Jacobi converges as slowly as dom lets it
                sum += r[j];
            }
        }
        r[i] = sum * (1 + dom / 100.0);
        return r;
    }

    static double rhs(int i) {
        return new SplittableRandom(0xB0B * 17L + i).nextDouble(-10, 10);
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        iters = ctx.param("iters");
        int dom = ctx.param("dom");
        lo = ctx.lo(n, ctx.rank);
        hi = ctx.hi(n, ctx.rank);
        a = new double[hi - lo][];
        b = new double[n];
        for (int i = lo; i < hi; i++) {
            a[i - lo] = row(i, n, dom);
            b[i] = rhs(i);
        }
        x = new double[n];
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        for (int it = 0; it < iters; it++) {
            double[] mine = new double[hi - lo];
            double change = 0;
            for (int i = lo; i < hi; i++) {
                double[] ai = a[i - lo];
                double s = b[i];
                for (int j = 0; j < n; j++) {
                    s -= ai[j] * x[j];
                }
                double xi = x[i] + s / ai[i]; // = (b_i - sum_{j != i} a_ij x_j) / a_ii
                change = Math.max(change, Math.abs(xi - x[i]));
                mine[i - lo] = xi;
            }
            Part part = new Part(it, change, mine);
            for (int r = 0; r < ctx.ranks; r++) {
                if (r != ctx.rank) {
                    long t = ctx.callStart();
                    ctx.<Peer>peer(r).putPart(ctx.rank, part);
                    ctx.called(t, 8L * mine.length + 12);
                }
            }
            System.arraycopy(mine, 0, x, lo, mine.length);
            for (int r = 0; r < ctx.ranks; r++) {
                if (r != ctx.rank) {
                    Part p = box.take(ctx, r);
                    if (p.iteration != it) {
                        throw new IllegalStateException("part of iteration " + p.iteration + " arrived in " + it);
                    }
                    System.arraycopy(p.x, 0, x, ctx.lo(n, r), p.x.length);
                    change = Math.max(change, p.change);
                }
            }
            done = it + 1;
            if (change < TOLERANCE) {
                break;
            }
        }
    }

    @Override
    public String check(Ctx ctx) {
        double scale = 0;
        for (int i = 0; i < n; i++) {
            scale = Math.max(scale, Math.abs(rhs(i)));
        }
        for (int i = lo; i < hi; i++) {
            double s = -b[i];
            for (int j = 0; j < n; j++) {
                s += a[i - lo][j] * x[j];
            }
            if (!(Math.abs(s) <= 1e-9 * scale)) {
                return "residual of row " + i + " is " + s + " after " + done + " iterations (max |b| " + scale + ")";
            }
        }
        return null;
    }
}
