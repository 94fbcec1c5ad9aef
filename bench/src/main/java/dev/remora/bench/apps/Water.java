package dev.remora.bench.apps;

import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Arrays;
import java.util.Map;

/**
 * A simplified Water ("Efficient Java RMI for Parallel Programming" section 4, after SPLASH-2's): n molecules, as
 * point particles with a Lennard-Jones pair force, in blocks per rank, moved by velocity Verlet for {@code steps}
 * steps. Each step a rank fetches the others' positions (one RMI per other rank returning a {@code double[]}, the
 * paper's "receives all bodies it needs from another machine using a single RMI"), computes each pair once (molecule
 * i with the next n/2 molecules, cyclically, as SPLASH's Water does), and sends the forces it computed on the
 * others' molecules back to their owners (one RMI per destination, a {@code double[]}). Check, on rank 0 alone (a
 * sequential run costs as much as the whole parallel one, and every rank making it took more time and CPU than the
 * compute phase with 4 ranks on 2 CPUs): it fetches each rank's final molecules (one RMI per rank, after the timed
 * phase), the total momentum stays zero (Newton's third law holds across ranks), and every molecule matches, to the
 * bit, a sequential run that adds the forces in the parallel run's order ({@link #sequentially}): a long run is
 * chaotic and amplifies any difference of summation order (with another order, runs of 16,000 steps and more drifted
 * past a 1e-9 tolerance), and so would it a value changed on the way.
 */
public final class Water implements App {

    /** The remote interface of a Water rank. */
    public interface Peer extends Remote {
        /** This rank's positions (x, y, z per molecule) in step {@code step}; waits until they are there. */
        double[] positions(int step) throws RemoteException;

        /** Forces another rank computed on this rank's molecules in step {@code step}. */
        void addForces(int from, int step, double[] forces) throws RemoteException;

        /** After the run: this rank's positions, then its velocities (3 per molecule each), for rank 0's check. */
        double[] finalState() throws RemoteException;
    }

    static final double DT = 0.0005;

    private Mailbox<double[]> forcesIn;
    private int n, steps, lo, hi, me, ranks;
    double[] pos, vel, force; // whole arrays, 3 per molecule; this rank owns lo..hi-1 (the tests change one)
    private final Object stepLock = new Object();
    private int publishedStep = -1;
    private double[] published;

    @Override
    public Map<String, String> sizes() {
        return Map.of("tiny", "n=64,steps=10", "comm", "n=200,steps=800", "compute", "n=4000,steps=100");
    }

    @Override
    public Remote peer(Ctx ctx) {
        forcesIn = new Mailbox<>(ctx.ranks);
        final Mailbox<double[]> box = forcesIn;
        return new Peer() {
            @Override
            public double[] positions(int step) {
                synchronized (stepLock) {
                    while (publishedStep < step) {
                        try {
                            stepLock.wait();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                            throw new IllegalStateException(e);
                        }
                    }
                    if (publishedStep != step) {
                        throw new IllegalStateException("positions of step " + step + " asked in " + publishedStep);
                    }
                    return published;
                }
            }

            @Override
            public void addForces(int from, int step, double[] f) {
                double[] tagged = Arrays.copyOf(f, f.length + 1);
                tagged[f.length] = step;
                box.put(from, tagged);
            }

            @Override
            public double[] finalState() {
                int len = 3 * (hi - lo);
                double[] s = new double[2 * len];
                System.arraycopy(pos, 3 * lo, s, 0, len);
                System.arraycopy(vel, 3 * lo, s, len, len);
                return s;
            }
        };
    }

    static double[] initialPositions(int n) {
        int side = (int) Math.ceil(Math.cbrt(n));
        double[] p = new double[3 * n];
        for (int i = 0; i < n; i++) {
            p[3 * i] = 1.12 * (i % side) + 0.01 * Math.sin(i);
            p[3 * i + 1] = 1.12 * ((i / side) % side) + 0.01 * Math.cos(i);
            p[3 * i + 2] = 1.12 * (i / (side * side));
        }
        return p;
    }

    static double[] initialVelocities(int n) {
        double[] v = new double[3 * n];
        for (int i = 0; i < 3 * n; i++) {
            v[i] = 0.3 * Math.sin(1.7 * i + 0.4);
        }
        for (int d = 0; d < 3; d++) { // no drift: total momentum zero
            double s = 0;
            for (int i = 0; i < n; i++) {
                s += v[3 * i + d];
            }
            for (int i = 0; i < n; i++) {
                v[3 * i + d] -= s / n;
            }
        }
        return v;
    }

    @Override
    public void setup(Ctx ctx) {
        n = ctx.param("n");
        steps = ctx.param("steps");
        me = ctx.rank;
        ranks = ctx.ranks;
        lo = ctx.lo(n, me);
        hi = ctx.hi(n, me);
        pos = initialPositions(n);
        vel = initialVelocities(n);
        force = new double[3 * n];
    }

    /** Adds the forces of the pairs (i, i+1 .. i+n/2 cyclically) for i in from..to-1 into f. */
    static void pairForces(double[] p, double[] f, int n, int from, int to) {
        int half = n / 2;
        for (int i = from; i < to; i++) {
            int reach = (n % 2 == 0 && i >= half) ? half - 1 : half; // the pair at distance n/2 counted once
            double xi = p[3 * i], yi = p[3 * i + 1], zi = p[3 * i + 2];
            double fx = 0, fy = 0, fz = 0;
            for (int o = 1; o <= reach; o++) {
                int j = i + o < n ? i + o : i + o - n;
                double dx = xi - p[3 * j], dy = yi - p[3 * j + 1], dz = zi - p[3 * j + 2];
                double r2 = Math.max(dx * dx + dy * dy + dz * dz, 0.64);
                double inv2 = 1 / r2, inv6 = inv2 * inv2 * inv2;
                double s = 24 * inv6 * (2 * inv6 - 1) * inv2;
                fx += s * dx;
                fy += s * dy;
                fz += s * dz;
                f[3 * j] -= s * dx;
                f[3 * j + 1] -= s * dy;
                f[3 * j + 2] -= s * dz;
            }
            f[3 * i] += fx;
            f[3 * i + 1] += fy;
            f[3 * i + 2] += fz;
        }
    }

    @Override
    public void run(Ctx ctx) throws Exception {
        computeForces(ctx, 0);
        for (int step = 1; step <= steps; step++) {
            for (int k = 3 * lo; k < 3 * hi; k++) { // velocity Verlet: half kick, drift
                vel[k] += 0.5 * DT * force[k];
                pos[k] += DT * vel[k];
            }
            computeForces(ctx, step);
            for (int k = 3 * lo; k < 3 * hi; k++) {
                vel[k] += 0.5 * DT * force[k];
            }
        }
    }

    private void computeForces(Ctx ctx, int step) throws Exception {
        synchronized (stepLock) {
            published = Arrays.copyOfRange(pos, 3 * lo, 3 * hi);
            publishedStep = step;
            stepLock.notifyAll();
        }
        for (int r = 0; r < ranks; r++) {
            if (r != me) {
                long t = ctx.callStart();
                double[] theirs = ctx.<Peer>peer(r).positions(step);
                ctx.called(t, 8L * theirs.length);
                System.arraycopy(theirs, 0, pos, 3 * ctx.lo(n, r), theirs.length);
            }
        }
        Arrays.fill(force, 0);
        pairForces(pos, force, n, lo, hi);
        for (int r = 0; r < ranks; r++) {
            if (r != me) {
                int a = ctx.lo(n, r), b = ctx.hi(n, r);
                long t = ctx.callStart();
                ctx.<Peer>peer(r).addForces(me, step, Arrays.copyOfRange(force, 3 * a, 3 * b));
                ctx.called(t, 24L * (b - a));
            }
        }
        for (int r = 0; r < ranks; r++) {
            if (r != me) {
                double[] f = forcesIn.take(ctx, r);
                if (f[f.length - 1] != step) {
                    throw new IllegalStateException("forces of step " + f[f.length - 1] + " arrived in " + step);
                }
                for (int k = 0; k < 3 * (hi - lo); k++) {
                    force[3 * lo + k] += f[k];
                }
            }
        }
    }

    /**
     * The run of {@code ranks} ranks (rank r owning molecules {@code start[r]} to {@code start[r + 1] - 1}) made in one
     * thread, with the same floating-point operations in the same order: positions, then velocities.
     */
    static double[][] sequentially(int n, int steps, int[] start) {
        double[] p = initialPositions(n), v = initialVelocities(n);
        double[] f = forces(p, n, start);
        for (int step = 1; step <= steps; step++) {
            for (int k = 0; k < 3 * n; k++) {
                v[k] += 0.5 * DT * f[k];
                p[k] += DT * v[k];
            }
            f = forces(p, n, start);
            for (int k = 0; k < 3 * n; k++) {
                v[k] += 0.5 * DT * f[k];
            }
        }
        return new double[][] {p, v};
    }

    /**
     * The forces as {@link #computeForces} sums them: each rank's pairs into an array of its own; a molecule's force
     * its owner's share, then the other ranks' in rank order.
     */
    private static double[] forces(double[] p, int n, int[] start) {
        int ranks = start.length - 1;
        double[][] part = new double[ranks][3 * n];
        for (int r = 0; r < ranks; r++) {
            pairForces(p, part[r], n, start[r], start[r + 1]);
        }
        double[] f = new double[3 * n];
        for (int m = 0; m < ranks; m++) {
            for (int k = 3 * start[m]; k < 3 * start[m + 1]; k++) {
                double s = part[m][k];
                for (int r = 0; r < ranks; r++) {
                    if (r != m) {
                        s += part[r][k];
                    }
                }
                f[k] = s;
            }
        }
        return f;
    }

    @Override
    public String check(Ctx ctx) throws Exception {
        if (me != 0) {
            return null; // rank 0 checks every rank's molecules
        }
        int[] start = new int[ranks + 1];
        for (int r = 0; r <= ranks; r++) {
            start[r] = ctx.lo(n, r);
        }
        double[][] seq = sequentially(n, steps, start);
        double[] p = seq[0], v = seq[1];
        double[] gotPos = new double[3 * n], gotVel = new double[3 * n];
        for (int r = 0; r < ranks; r++) {
            int a = 3 * ctx.lo(n, r), len = 3 * ctx.hi(n, r) - a;
            double[] s = ctx.<Peer>peer(r).finalState();
            if (s.length != 2 * len) {
                return "rank " + r + " returned " + s.length + " values for " + len / 3 + " molecules";
            }
            System.arraycopy(s, 0, gotPos, a, len);
            System.arraycopy(s, len, gotVel, a, len);
        }
        double[] momentum = new double[3];
        double scale = 0;
        for (int k = 0; k < 3 * n; k++) {
            momentum[k % 3] += gotVel[k];
            scale += Math.abs(gotVel[k]);
        }
        for (double m : momentum) {
            if (Math.abs(m) > 1e-9 * scale) {
                return "total momentum " + Arrays.toString(momentum);
            }
        }
        for (int k = 0; k < 3 * n; k++) {
            if (Double.doubleToRawLongBits(gotPos[k]) != Double.doubleToRawLongBits(p[k])
                    || Double.doubleToRawLongBits(gotVel[k]) != Double.doubleToRawLongBits(v[k])) {
                return "molecule " + k / 3 + ": position " + gotPos[k] + " velocity " + gotVel[k] + ", sequentially "
                        + p[k] + " " + v[k];
            }
        }
        return null;
    }
}
