package dev.remora.bench.apps;

import java.rmi.Remote;
import java.util.Map;

/**
 * What a rank knows: its number, the number of ranks, the problem's parameters, its peers' stubs, and the counters
 * of its communication (calls it made, the payload bytes they carried, the time spent in them or waiting for data).
 */
public final class Ctx {
    final int rank;
    final int ranks;
    private final Map<String, String> params;
    final Remote[] peers;
    private long calls;
    private long bytes;
    private long commNanos;
    private long callNanos;

    Ctx(int rank, int ranks, Map<String, String> params) {
        this.rank = rank;
        this.ranks = ranks;
        this.params = params;
        this.peers = new Remote[ranks];
    }

    int param(String name) {
        String v = params.get(name);
        if (v == null) {
            throw new IllegalArgumentException("missing parameter '" + name + "' (have " + params + ")");
        }
        return Integer.parseInt(v.trim());
    }

    @SuppressWarnings("unchecked")
    <T extends Remote> T peer(int r) {
        return (T) peers[r];
    }

    /** First index of rank {@code r}'s block of {@code n} items split into {@link #ranks} near-equal blocks. */
    int lo(int n, int r) {
        return (int) ((long) n * r / ranks);
    }

    int hi(int n, int r) {
        return lo(n, r + 1);
    }

    /** Start of a remote call, for {@link #called}. */
    long callStart() {
        return System.nanoTime();
    }

    /** A remote call that started at {@code start} and carried about {@code payload} bytes of data. */
    void called(long start, long payload) {
        long t = System.nanoTime() - start;
        commNanos += t;
        callNanos += t;
        calls++;
        bytes += payload;
    }

    /** Calls made on other threads (their time is counted by {@link #waited}). */
    void counted(long callCount, long payload) {
        calls += callCount;
        bytes += payload;
    }

    /** Time spent waiting for a peer's data. */
    void waited(long nanos) {
        commNanos += nanos;
    }

    long calls() {
        return calls;
    }

    long bytes() {
        return bytes;
    }

    long commNanos() {
        return commNanos;
    }

    /** The part of {@link #commNanos} spent inside this thread's own remote calls (not waiting for a peer). */
    long callNanos() {
        return callNanos;
    }

    void resetCounters() {
        calls = 0;
        bytes = 0;
        commNanos = 0;
        callNanos = 0;
    }
}
