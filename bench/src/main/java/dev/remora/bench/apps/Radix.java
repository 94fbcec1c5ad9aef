package dev.remora.bench.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Arrays;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Parallel radix sort after SPLASH-2's, as in "Efficient Java RMI for Parallel Programming" section 4: n 31-bit keys,
 * n/P per rank, sorted by 8-bit digits in 4 passes. Each pass: a local histogram; the histogram merge (each rank
 * sends its histogram, an {@code int[256]}, to every other rank); then each key's place in the globally stable
 * order, and the keys move to the rank owning that place (one RMI per destination with a {@link Keys} object: the
 * keys and their places). Check: each rank regenerates all ranks' input, sorts it with {@link Arrays#sort} and
 * compares its own block.
 */
public final class Radix implements App {

    /** The remote interface of a radix-sort rank. */
    public interface Peer extends Remote {
        void putHistogram(int from, int pass, int[] counts) throws RemoteException;

        void putKeys(int from, Keys keys) throws RemoteException;
    }

    /** Keys moving to one rank in one pass, with their global places. */
    public static final class Keys implements Serializable {
        private static final long serialVersionUID = 1L;
        final int pass;
        final int[] places;
        final int[] keys;

        Keys(int pass, int[] places, int[] keys) {
            this.pass = pass;
            this.places = places;
            this.keys = keys;
        }
    }

    static final int BITS = 8, BUCKETS = 1 << BITS, PASSES = 4;

    private Mailbox<int[]> histograms;
    private Mailbox<Keys> moves;
    private int n, lo, hi;
    private int[] keys;

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=20000", "comm", "n=200000", "compute", "n=8000000");
    }

    @Override
    public Remote peer(Ctx ctx) {
        histograms = new Mailbox<>(ctx.ranks);
        moves = new Mailbox<>(ctx.ranks);
        final Mailbox<int[]> h = histograms;
        final Mailbox<Keys> m = moves;
        return new Peer() {
            @Override
            public void putHistogram(int from, int pass, int[] counts) {
                int[] tagged = Arrays.copyOf(counts, BUCKETS + 1);
                tagged[BUCKETS] = pass;
                h.put(from, tagged);
            }

            @Override
            public void putKeys(int from, Keys k) {
                m.put(from, k);
            }
        };
    }

    static int[] input(Ctx ctx, int n, int r) {
        int from = ctx.lo(n, r), to = ctx.hi(n, r);
        SplittableRandom rnd = new SplittableRandom(0xCAFEL + r);
        int[] k = new int[to - from];
        for (int i = 0; i < k.length; i++) {
            k[i] = rnd.nextInt() >>> 1;
        }
        return k;
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        lo = ctx.lo(n, ctx.rank);
        hi = ctx.hi(n, ctx.rank);
        keys = input(ctx, n, ctx.rank);
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        int p = ctx.ranks, me = ctx.rank;
        for (int pass = 0; pass < PASSES; pass++) {
            int shift = pass * BITS;
            int[] count = new int[BUCKETS];
            for (int k : keys) {
                count[(k >>> shift) & (BUCKETS - 1)]++;
            }
            for (int r = 0; r < p; r++) {
                if (r != me) {
                    long t = ctx.callStart();
                    ctx.<Peer>peer(r).putHistogram(me, pass, count);
                    ctx.called(t, 4L * BUCKETS);
                }
            }
            int[][] all = new int[p][];
            all[me] = count;
            for (int r = 0; r < p; r++) {
                if (r != me) {
                    int[] h = histograms.take(ctx, r);
                    if (h[BUCKETS] != pass) {
                        throw new IllegalStateException("histogram of pass " + h[BUCKETS] + " arrived in " + pass);
                    }
                    all[r] = h;
                }
            }
            // next[d]: global place of this rank's next key with digit d (digits in order, ranks in order within)
            int[] next = new int[BUCKETS];
            int place = 0;
            for (int d = 0; d < BUCKETS; d++) {
                for (int r = 0; r < p; r++) {
                    if (r == me) {
                        next[d] = place;
                    }
                    place += all[r][d];
                }
            }
            int[] dest = new int[keys.length];
            int[] perRank = new int[p];
            for (int i = 0; i < keys.length; i++) {
                int g = next[(keys[i] >>> shift) & (BUCKETS - 1)]++;
                dest[i] = g;
                perRank[ownerOf(ctx, g)]++;
            }
            int[][] outPlaces = new int[p][], outKeys = new int[p][];
            for (int r = 0; r < p; r++) {
                outPlaces[r] = new int[perRank[r]];
                outKeys[r] = new int[perRank[r]];
            }
            int[] fill = new int[p];
            for (int i = 0; i < keys.length; i++) {
                int r = ownerOf(ctx, dest[i]);
                outPlaces[r][fill[r]] = dest[i];
                outKeys[r][fill[r]++] = keys[i];
            }
            for (int r = 0; r < p; r++) {
                if (r != me) {
                    long t = ctx.callStart();
                    ctx.<Peer>peer(r).putKeys(me, new Keys(pass, outPlaces[r], outKeys[r]));
                    ctx.called(t, 8L * perRank[r]);
                }
            }
            int[] sorted = new int[hi - lo];
            place(sorted, outPlaces[me], outKeys[me]);
            for (int r = 0; r < p; r++) {
                if (r != me) {
                    Keys k = moves.take(ctx, r);
                    if (k.pass != pass) {
                        throw new IllegalStateException("keys of pass " + k.pass + " arrived in " + pass);
                    }
                    place(sorted, k.places, k.keys);
                }
            }
            keys = sorted;
        }
    }

    private void place(int[] sorted, int[] places, int[] values) {
        for (int i = 0; i < places.length; i++) {
            sorted[places[i] - lo] = values[i];
        }
    }

    private int ownerOf(Ctx ctx, int g) {
        int r = (int) ((long) g * ctx.ranks / n);
        while (ctx.hi(n, r) <= g) {
            r++;
        }
        while (ctx.lo(n, r) > g) {
            r--;
        }
        return r;
    }

    @Override
    public String check(Ctx ctx) {
        int[] all = new int[n];
        for (int r = 0; r < ctx.ranks; r++) {
            int[] k = input(ctx, n, r);
            System.arraycopy(k, 0, all, ctx.lo(n, r), k.length);
        }
        Arrays.sort(all);
        for (int i = lo; i < hi; i++) {
            if (keys[i - lo] != all[i]) {
                return "key " + i + " is " + keys[i - lo] + ", sorted input has " + all[i];
            }
        }
        return null;
    }
}
