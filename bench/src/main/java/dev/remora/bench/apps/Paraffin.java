package dev.remora.bench.apps;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * Paraffin generation as in "More Efficient Serialization and RMI for Java" section 6.1 (a Salishan problem): all
 * paraffin molecules C_i H_2i+2 for i &lt;= n, every isomer once, as a master-worker program that passes graphs of
 * objects as arguments and results. The paper names only the problem and the style; what we assumed: the classic
 * radical method (a molecule is a carbon or a bond at its centre with radicals - trees of at most 3 sub-radicals -
 * hanging off it). Rank 0 builds the radicals up to n/2 and hands out tasks, largest molecules first: a task is
 * one of {@code parts} slices of one size (the first radical's candidates dealt round robin), the whole set
 * {@code rounds} times over (a benchmark's repetition; the last round's answer is checked);
 * two threads per worker call {@code paraffins(size, part, parts, radicals)} (the radicals, a shared object graph,
 * as argument; the molecules, {@link Molecule}s pointing into that graph, as result); the master only hands out
 * work, so its whole compute phase counts as waiting (comm) and the workers' as computing. Check: the number of molecules of each size is OEIS A000602's and their canonical forms are all
 * different.
 */
public final class Paraffin implements App {

    /** The remote interface of a paraffin worker. */
    public interface Peer extends Remote {
        /** Part {@code part} of {@code parts} of the paraffins with {@code size} carbons. */
        Molecule[] paraffins(int size, int part, int parts, Radical[][] radicals) throws RemoteException;
    }

    /** A radical: a hydrogen ({@code subs == null}) or a carbon with 3 sub-radicals. */
    public static final class Radical implements Serializable {
        private static final long serialVersionUID = 1L;
        final int size;
        final int index; // position among the radicals of its size
        final Radical[] subs;

        Radical(int size, int index, Radical[] subs) {
            this.size = size;
            this.index = index;
            this.subs = subs;
        }
    }

    /** A molecule: a carbon with 4 radicals, or a bond between 2 radicals of equal size. */
    public static final class Molecule implements Serializable {
        private static final long serialVersionUID = 1L;
        final boolean carbonCentred;
        final Radical[] parts;

        Molecule(boolean carbonCentred, Radical[] parts) {
            this.carbonCentred = carbonCentred;
            this.parts = parts;
        }
    }

    /** OEIS A000602: paraffin isomers with 0, 1, 2, ... carbons. */
    static final long[] ISOMERS = {1, 1, 1, 1, 2, 3, 5, 9, 18, 35, 75, 159, 355, 802, 1858, 4347, 10359, 24894,
            60523, 148284, 366319};

    private int n, parts, rounds;
    private AtomicReferenceArray<Molecule[]> found; // index size * parts + part

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=10,parts=4,rounds=2", "comm", "n=13,parts=8,rounds=40",
                "compute", "n=18,parts=8,rounds=12");
    }

    @Override
    public Remote peer(Ctx ctx) {
        return new Peer() {
            @Override
            public Molecule[] paraffins(int size, int part, int parts, Radical[][] radicals) {
                return generate(size, part, parts, radicals);
            }
        };
    }

    /** Radicals of sizes 0..max, each size's in a fixed order. */
    static Radical[][] radicals(int max) {
        Radical[][] r = new Radical[max + 1][];
        r[0] = new Radical[] {new Radical(0, 0, null)};
        for (int s = 1; s <= max; s++) {
            List<Radical> out = new ArrayList<>();
            for (int a = 0; a <= s - 1; a++) {
                for (int b = a; a + b <= s - 1; b++) {
                    int c = s - 1 - a - b;
                    if (c < b) {
                        continue;
                    }
                    for (int i = 0; i < r[a].length; i++) {
                        for (int j = (b == a ? i : 0); j < r[b].length; j++) {
                            for (int k = (c == b ? j : 0); k < r[c].length; k++) {
                                out.add(new Radical(s, out.size(), new Radical[] {r[a][i], r[b][j], r[c][k]}));
                            }
                        }
                    }
                }
            }
            r[s] = out.toArray(new Radical[0]);
        }
        return r;
    }

    /** The paraffins of {@code size} carbons whose first radical is the part-th, parts-th, ... of the candidates. */
    static Molecule[] generate(int size, int part, int parts, Radical[][] r) {
        List<Molecule> out = new ArrayList<>();
        int outer = 0; // counts the candidates for the first radical: they are dealt to the parts round robin
        if (size % 2 == 0) { // bond-centred: two radicals of size/2
            Radical[] h = r[size / 2];
            for (int i = 0; i < h.length; i++) {
                if (outer++ % parts != part) {
                    continue;
                }
                for (int j = i; j < h.length; j++) {
                    out.add(new Molecule(false, new Radical[] {h[i], h[j]}));
                }
            }
        }
        int max = (size - 1) / 2; // carbon-centred: 4 radicals, each smaller than half the molecule
        for (int a = 0; a <= max; a++) {
            for (int b = a; b <= max; b++) {
                for (int c = b; c <= max; c++) {
                    int d = size - 1 - a - b - c;
                    if (d < c || d > max) {
                        continue;
                    }
                    for (int i = 0; i < r[a].length; i++) {
                        if (outer++ % parts != part) {
                            continue;
                        }
                        for (int j = (b == a ? i : 0); j < r[b].length; j++) {
                            for (int k = (c == b ? j : 0); k < r[c].length; k++) {
                                for (int l = (d == c ? k : 0); l < r[d].length; l++) {
                                    out.add(new Molecule(true, new Radical[] {r[a][i], r[b][j], r[c][k], r[d][l]}));
                                }
                            }
                        }
                    }
                }
            }
        }
        return out.toArray(new Molecule[0]);
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        if (n >= ISOMERS.length) {
            throw new IllegalArgumentException("paraffin n must be below " + ISOMERS.length + ", got " + n);
        }
        parts = ctx.param("parts");
        rounds = ctx.param("rounds");
        found = new AtomicReferenceArray<>((n + 1) * parts);
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        if (ctx.rank != 0) {
            return; // a worker: serves rank 0's calls until the closing barrier
        }
        Radical[][] radicals = radicals(n / 2);
        ConcurrentLinkedQueue<int[]> tasks = new ConcurrentLinkedQueue<>(); // size, part; the whole set rounds times
        for (int round = 0; round < rounds; round++) {
            for (int s = n; s >= 1; s--) {
                for (int part = 0; part < parts; part++) {
                    tasks.add(new int[] {s, part});
                }
            }
        }
        List<Thread> threads = new ArrayList<>();
        Throwable[] failure = new Throwable[1];
        long[] waitedCalls = new long[ctx.ranks];
        for (int w = 0; w < 2 * (ctx.ranks - 1); w++) { // two threads per worker: one call in flight while one computes
            final int peer = 1 + w % (ctx.ranks - 1);
            final int r = peer;
            final Peer p = ctx.peer(r);
            Thread t = new Thread(() -> {
                try {
                    for (int[] task; (task = tasks.poll()) != null; ) {
                        int s = task[0];
                        synchronized (waitedCalls) {
                            waitedCalls[peer]++;
                        }
                        Radical[][] args = Arrays.copyOf(radicals, s / 2 + 1);
                        found.set(s * parts + task[1], p.paraffins(s, task[1], parts, args));
                    }
                } catch (Throwable e) {
                    synchronized (failure) {
                        failure[0] = e;
                    }
                }
            }, "paraffin-worker-" + r);
            t.start();
            threads.add(t);
        }
        if (ctx.ranks == 1) { // no workers: the master alone
            for (int[] task; (task = tasks.poll()) != null; ) {
                found.set(task[0] * parts + task[1], generate(task[0], task[1], parts, radicals));
            }
        }
        long t = System.nanoTime(); // the master only hands out work: it waits for its workers all along
        for (Thread th : threads) {
            th.join();
        }
        ctx.waited(System.nanoTime() - t);
        long calls = 0;
        for (long c : waitedCalls) {
            calls += c;
        }
        ctx.counted(calls, 0);
        synchronized (failure) {
            if (failure[0] != null) {
                throw new IllegalStateException("a paraffin worker call failed", failure[0]);
            }
        }
    }

    static String canon(Radical r) {
        if (r.subs == null) {
            return "H";
        }
        String[] s = {canon(r.subs[0]), canon(r.subs[1]), canon(r.subs[2])};
        Arrays.sort(s);
        return "C(" + s[0] + "," + s[1] + "," + s[2] + ")";
    }

    @Override
    public String check(Ctx ctx) {
        if (ctx.rank != 0) {
            return null; // the answer is rank 0's
        }
        for (int s = 1; s <= n; s++) {
            List<Molecule> all = new ArrayList<>();
            for (int part = 0; part < parts; part++) {
                Molecule[] got = found.get(s * parts + part);
                if (got == null) {
                    return "no answer for part " + part + " of size " + s;
                }
                all.addAll(Arrays.asList(got));
            }
            Molecule[] m = all.toArray(new Molecule[0]);
            if (m.length != ISOMERS[s]) {
                return m.length + " paraffins with " + s + " carbons, OEIS A000602 says "
                        + ISOMERS[s];
            }
            Set<String> seen = new HashSet<>();
            for (Molecule mol : m) {
                String[] parts = new String[mol.parts.length];
                int carbons = mol.carbonCentred ? 1 : 0;
                for (int i = 0; i < parts.length; i++) {
                    parts[i] = canon(mol.parts[i]);
                    carbons += mol.parts[i].size;
                }
                Arrays.sort(parts);
                if (carbons != s || !seen.add((mol.carbonCentred ? "C" : "B") + String.join(",", parts))) {
                    return "a paraffin with " + s + " carbons is " + (carbons != s ? "C" + carbons : "a duplicate");
                }
            }
        }
        return null;
    }
}
