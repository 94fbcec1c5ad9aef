package dev.remora.bench.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Map;

/**
 * Red/black successive over-relaxation on an n x n grid (seed papers: "More Efficient Serialization and RMI for
 * Java" section 6.1, "Efficient Java RMI for Parallel Programming" section 4). The interior rows are split into
 * blocks, one per rank; before each red and each black half-iteration a rank sends its first row to the rank above
 * and its last row to the rank below (one RMI each, a {@code double[]}), and waits for theirs. Check, on rank 0
 * alone (a sequential run in every rank took longer than the compute phase at the compute size): it runs the same
 * iterations sequentially on the whole grid, fetches each rank's rows (one RMI per rank, after the timed phase) and
 * compares them, which must be equal bit for bit (the same operations in the same order).
 */
public final class Sor implements App {

    /** The remote interface of a SOR rank. */
    public interface Peer extends Remote {
        void putRow(int from, int step, double[] row) throws RemoteException;

        /** After the run: this rank's rows, for rank 0's check. */
        double[][] rows() throws RemoteException;
    }

    static final class Row implements Serializable {
        private static final long serialVersionUID = 1L;
        final int step;
        final double[] values;

        Row(int step, double[] values) {
            this.step = step;
            this.values = values;
        }
    }

    static final double OMEGA = 1.25;

    private Mailbox<Row> box;
    private int n, iters, first, last; // global interior rows first..last-1 are this rank's
    private double[][] u; // rows first-1 .. last

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=40,iters=20", "comm", "n=200,iters=2500", "compute", "n=3000,iters=200");
    }

    @Override
    public Remote peer(Ctx ctx) {
        box = new Mailbox<>(ctx.ranks);
        final Mailbox<Row> b = box;
        return new Peer() {
            @Override
            public void putRow(int from, int step, double[] row) {
                b.put(from, new Row(step, row));
            }

            @Override
            public double[][] rows() {
                return java.util.Arrays.copyOfRange(u, 1, last - first + 1);
            }
        };
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        iters = ctx.param("iters");
        first = 1 + ctx.lo(n - 2, ctx.rank);
        last = 1 + ctx.hi(n - 2, ctx.rank);
        u = new double[last - first + 2][];
        for (int i = first - 1; i <= last; i++) {
            u[i - first + 1] = initialRow(n, i);
        }
    }

    static double[] initialRow(int n, int i) {
        double[] row = new double[n];
        for (int j = 0; j < n; j++) {
            if (i == 0 || i == n - 1 || j == 0 || j == n - 1) {
                row[j] = Math.sin(0.37 * i) + Math.cos(0.23 * j) + (i == 0 ? 4 : 0); // a fixed, uneven boundary
            }
        }
        return row;
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        int up = ctx.rank - 1, down = ctx.rank + 1;
        boolean hasUp = up >= 0 && ctx.lo(n - 2, up) < ctx.hi(n - 2, up);
        boolean hasDown = down < ctx.ranks && ctx.lo(n - 2, down) < ctx.hi(n - 2, down);
        int rows = last - first;
        for (int step = 0; step < 2 * iters; step++) {
            if (rows > 0) {
                if (hasUp) {
                    long t = ctx.callStart();
                    ctx.<Peer>peer(up).putRow(ctx.rank, step, u[1]);
                    ctx.called(t, 8L * n);
                }
                if (hasDown) {
                    long t = ctx.callStart();
                    ctx.<Peer>peer(down).putRow(ctx.rank, step, u[rows]);
                    ctx.called(t, 8L * n);
                }
                if (hasUp) {
                    u[0] = expect(box.take(ctx, up), step);
                }
                if (hasDown) {
                    u[rows + 1] = expect(box.take(ctx, down), step);
                }
            }
            relax(u, 1, rows + 1, first - 1, n, step & 1);
        }
    }

    private static double[] expect(Row r, int step) {
        if (r.step != step) {
            throw new IllegalStateException("row of step " + r.step + " arrived in step " + step);
        }
        return r.values;
    }

    /** Updates the points of one colour in local rows from..to-1; global row = local + offset. */
    static void relax(double[][] u, int from, int to, int offset, int n, int colour) {
        for (int i = from; i < to; i++) {
            double[] above = u[i - 1], row = u[i], below = u[i + 1];
            for (int j = 1 + ((i + offset + 1 + colour) & 1); j < n - 1; j += 2) {
                row[j] += OMEGA * ((above[j] + below[j] + row[j - 1] + row[j + 1]) * 0.25 - row[j]);
            }
        }
    }

    @Override
    public String check(Ctx ctx) throws Exception {
        if (ctx.rank != 0) {
            return null; // rank 0 checks every rank's rows
        }
        double[][] g = new double[n][];
        for (int i = 0; i < n; i++) {
            g[i] = initialRow(n, i);
        }
        for (int step = 0; step < 2 * iters; step++) {
            relax(g, 1, n - 1, 0, n, step & 1);
        }
        for (int r = 0; r < ctx.ranks; r++) {
            int from = 1 + ctx.lo(n - 2, r), to = 1 + ctx.hi(n - 2, r);
            double[][] theirs = ctx.<Peer>peer(r).rows();
            if (theirs.length != to - from) {
                return "rank " + r + " returned " + theirs.length + " rows for " + (to - from);
            }
            for (int i = from; i < to; i++) {
                double[] row = theirs[i - from];
                if (row.length != n) {
                    return "rank " + r + " returned row " + i + " with " + row.length + " values, not " + n;
                }
                for (int j = 0; j < n; j++) {
                    if (Double.doubleToLongBits(row[j]) != Double.doubleToLongBits(g[i][j])) {
                        return "u[" + i + "][" + j + "] = " + row[j] + ", sequentially " + g[i][j];
                    }
                }
            }
        }
        return null;
    }
}
