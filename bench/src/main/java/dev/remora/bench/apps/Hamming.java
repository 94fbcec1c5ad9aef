package dev.remora.bench.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Arrays;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * Hamming's problem as in "More Efficient Serialization and RMI for Java" section 6.1: given primes a, b, c, ...
 * (every second prime: 2, 5, 11, 17, ...), output in increasing order and without duplicates the first {@code m}
 * integers a^i b^j c^k ... The paper gives no more than that its RMIs carry only primitive arguments and that
 * several threads per node have little work; what we assumed: the classic merge of one stream per prime
 * (prime times the sequence so far), the {@code k} primes dealt round robin to the ranks. Each rank keeps its
 * primes' stream heads; rank 0 drives: per output number it calls every other rank's {@code next(value)} from a
 * thread of its own (one thread per peer), which appends the value, advances the heads equal to it and returns
 * its smallest head ({@code long} in, {@code long} out), while rank 0 does the same for its primes; the smallest
 * of all is the next number. Heads are scanned linearly, so {@code k} sets the work per call. Check, on rank 0
 * alone (a sequential merge in every rank took longer than the compute phase at the compute size): a sequential
 * priority-queue merge over all primes, against every rank's copy of the sequence (one RMI per rank, after the
 * timed phase).
 */
public final class Hamming implements App {

    /** The remote interface of a Hamming rank. */
    public interface Peer extends Remote {
        /** Appends {@code value} to the sequence, advances the heads equal to it, returns the smallest head. */
        long next(long value) throws RemoteException;

        /** After the run: this rank's copy of the sequence, for rank 0's check. */
        long[] sequence() throws RemoteException;
    }

    private int m, k;
    private long[] primes; // this rank's
    private int[] index; // per own prime: position in the sequence its head multiplies
    private long[] head;
    private long[] seq;
    private int length;

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "m=500,k=8", "comm", "m=6000,k=6", "compute", "m=1500,k=4000000");
    }

    @Override
    public Remote peer(Ctx ctx) {
        return new Peer() {
            @Override
            public long next(long value) {
                return advance(value);
            }

            @Override
            public long[] sequence() {
                return Arrays.copyOf(seq, length);
            }
        };
    }

    /** Every second prime: the 0th, 2nd, 4th, ... ({@code count} of them). */
    static long[] everySecondPrime(int count) {
        int limit = Math.max(100, (int) (2.4 * count * Math.log(2.0 * count + 2) + 10 * count));
        while (true) {
            boolean[] composite = new boolean[limit + 1];
            long[] out = new long[count];
            int seen = 0, taken = 0;
            for (int i = 2; i <= limit && taken < count; i++) {
                if (!composite[i]) {
                    if (seen++ % 2 == 0) {
                        out[taken++] = i;
                    }
                    for (long j = (long) i * i; j <= limit; j += i) {
                        composite[(int) j] = true;
                    }
                }
            }
            if (taken == count) {
                return out;
            }
            limit *= 2;
        }
    }

    static long times(long a, long b) {
        long hi = Math.multiplyHigh(a, b);
        long lo = a * b;
        return hi != 0 || lo < 0 ? Long.MAX_VALUE : lo;
    }

    @Override
    public void setup(Ctx ctx) {
        m = ctx.param("m");
        k = ctx.param("k");
        long[] all = everySecondPrime(k);
        int mine = 0;
        for (int i = ctx.rank; i < k; i += ctx.ranks) {
            mine++;
        }
        primes = new long[mine];
        for (int i = ctx.rank, j = 0; i < k; i += ctx.ranks) {
            primes[j++] = all[i];
        }
        index = new int[mine];
        head = new long[mine];
        seq = new long[m];
        length = 0;
    }

    synchronized long advance(long value) {
        seq[length++] = value;
        long min = Long.MAX_VALUE;
        for (int i = 0; i < primes.length; i++) {
            if (length == 1) {
                head[i] = primes[i]; // the head multiplies seq[0] = 1
            } else if (head[i] == value) {
                head[i] = times(primes[i], seq[++index[i]]);
            }
            if (head[i] < min) {
                min = head[i];
            }
        }
        return min;
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        if (ctx.rank != 0) {
            return; // rank 0 drives; this rank answers its calls until the closing barrier
        }
        int others = ctx.ranks - 1;
        ExecutorService threads = Executors.newFixedThreadPool(Math.max(1, others));
        try {
            @SuppressWarnings("unchecked")
            Future<Long>[] f = new Future[others];
            long value = 1;
            for (int n = 0; n < m; n++) {
                final long v = value;
                for (int r = 1; r <= others; r++) {
                    final Peer p = ctx.peer(r);
                    f[r - 1] = threads.submit(() -> p.next(v));
                }
                long min = advance(v); // while the peers work on theirs
                long t = ctx.callStart();
                for (int r = 0; r < others; r++) {
                    min = Math.min(min, f[r].get());
                }
                ctx.waited(System.nanoTime() - t);
                ctx.counted(others, 16L * others);
                value = min;
            }
        } finally {
            threads.shutdownNow();
        }
    }

    static long[] sequential(int m, int k) {
        long[] primes = everySecondPrime(k);
        long[] seq = new long[m];
        PriorityQueue<long[]> heads = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0])); // head, prime, index
        seq[0] = 1;
        for (long p : primes) {
            heads.add(new long[] {p, p, 0});
        }
        for (int n = 1; n < m; n++) {
            long v = heads.peek()[0];
            seq[n] = v;
            while (heads.peek()[0] == v) {
                long[] h = heads.poll();
                h[2]++;
                h[0] = times(h[1], seq[(int) h[2]]);
                heads.add(h);
            }
        }
        return seq;
    }

    @Override
    public String check(Ctx ctx) throws Exception {
        if (ctx.rank != 0) {
            return null; // rank 0 checks every rank's copy
        }
        long[] want = sequential(m, k);
        for (int r = 0; r < ctx.ranks; r++) {
            long[] got = ctx.<Peer>peer(r).sequence();
            if (got.length != m) {
                return "rank " + r + " saw " + got.length + " numbers, not " + m;
            }
            for (int i = 0; i < m; i++) {
                if (got[i] != want[i]) {
                    return "rank " + r + ": number " + i + " is " + got[i] + ", sequentially " + want[i]
                            + " (first: " + Arrays.toString(Arrays.copyOf(got, Math.min(m, 12))) + ")";
                }
            }
        }
        return null;
    }
}
