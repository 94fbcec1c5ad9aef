package dev.remora.bench.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Arrays;
import java.util.Map;

/**
 * All-pairs shortest paths with Floyd's algorithm ("Efficient Java RMI for Parallel Programming" section 4): the
 * distance table of an n-node directed graph is split into row blocks; in iteration k the owner of row k sends it
 * to all other ranks along a binary spanning tree rooted at the owner (each rank forwards it to its two children
 * with one RMI each, an {@code int[]}), then every rank relaxes its rows through node k. Check: each rank runs
 * Dijkstra's algorithm from up to 4 of its rows' nodes on the original graph and compares those rows.
 */
public final class Asp implements App {

    /** The remote interface of an ASP rank. */
    public interface Peer extends Remote {
        void putRow(int from, int k, int[] row) throws RemoteException;
    }

    static final int INF = Integer.MAX_VALUE / 4;

    private Mailbox<int[]> box;
    private int n, lo, hi;
    private int[][] d; // this rank's rows lo..hi-1

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=60", "comm", "n=300", "compute", "n=2700");
    }

    @Override
    public Remote peer(Ctx ctx) {
        box = new Mailbox<>(ctx.ranks);
        final Mailbox<int[]> b = box;
        return new Peer() {
            @Override
            public void putRow(int from, int k, int[] row) {
                int[] tagged = Arrays.copyOf(row, row.length + 1); // the mailbox keeps k with the row
                tagged[row.length] = k;
                b.put(from, tagged);
            }
        };
    }

    /** Edge weight i -> j of the generated graph: about a third of the pairs have an edge, weights 1..1000. */
    static int weight(int i, int j) {
        if (i == j) {
            return 0;
        }
        long h = (i * 0x9E3779B97F4A7C15L) ^ (j * 0xC2B2AE3D27D4EB4FL);
        h ^= h >>> 31;
        h *= 0xBF58476D1CE4E5B9L;
        h ^= h >>> 29;
        return (h & 3) == 0 ? (int) ((h >>> 8) % 1000) + 1 : INF;
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        lo = ctx.lo(n, ctx.rank);
        hi = ctx.hi(n, ctx.rank);
        d = new int[hi - lo][n];
        for (int i = lo; i < hi; i++) {
            for (int j = 0; j < n; j++) {
                d[i - lo][j] = weight(i, j);
            }
        }
    }

    private int owner(Ctx ctx, int k) {
        int r = (int) ((long) k * ctx.ranks / n);
        while (ctx.hi(n, r) <= k) {
            r++;
        }
        while (ctx.lo(n, r) > k) {
            r--;
        }
        return r;
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        int p = ctx.ranks;
        for (int k = 0; k < n; k++) {
            int root = owner(ctx, k);
            int v = (ctx.rank - root + p) % p; // position in the tree rooted at the owner
            int[] rowK;
            if (v == 0) {
                rowK = d[k - lo];
            } else {
                int parent = ((v - 1) / 2 + root) % p;
                int[] tagged = box.take(ctx, parent);
                if (tagged[n] != k) {
                    throw new IllegalStateException("row " + tagged[n] + " arrived in iteration " + k);
                }
                rowK = tagged; // the extra last element is never read below
            }
            for (int c = 2 * v + 1; c <= 2 * v + 2 && c < p; c++) {
                long t = ctx.callStart();
                ctx.<Peer>peer((c + root) % p).putRow(ctx.rank, k, v == 0 ? rowK : Arrays.copyOf(rowK, n));
                ctx.called(t, 4L * n);
            }
            relax(d, rowK, k, n);
        }
    }

    static void relax(int[][] rows, int[] rowK, int k, int n) {
        for (int[] row : rows) {
            int dik = row[k];
            if (dik >= INF) {
                continue;
            }
            for (int j = 0; j < n; j++) {
                int via = dik + rowK[j];
                if (via < row[j]) {
                    row[j] = via;
                }
            }
        }
    }

    @Override
    public String check(Ctx ctx) {
        int count = hi - lo;
        for (int s = 0; s < Math.min(4, count); s++) {
            int src = lo + (int) ((long) s * count / Math.min(4, count));
            int[] want = dijkstra(src, n);
            for (int j = 0; j < n; j++) {
                if (want[j] != d[src - lo][j]) {
                    return "d[" + src + "][" + j + "] = " + d[src - lo][j] + ", Dijkstra says " + want[j];
                }
            }
        }
        return null;
    }

    static int[] dijkstra(int src, int n) {
        int[] dist = new int[n];
        boolean[] done = new boolean[n];
        Arrays.fill(dist, INF);
        dist[src] = 0;
        for (int round = 0; round < n; round++) {
            int u = -1;
            for (int i = 0; i < n; i++) {
                if (!done[i] && (u < 0 || dist[i] < dist[u])) {
                    u = i;
                }
            }
            if (dist[u] >= INF) {
                break;
            }
            done[u] = true;
            for (int j = 0; j < n; j++) {
                int w = weight(u, j);
                if (w < INF && dist[u] + w < dist[j]) {
                    dist[j] = dist[u] + w;
                }
            }
        }
        return dist;
    }
}
