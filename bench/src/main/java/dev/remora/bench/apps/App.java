package dev.remora.bench.apps;

import java.rmi.Remote;
import java.util.Map;

/**
 * One parallel application of the papers, written as such programs were: each rank exports one remote object of
 * the app's own {@link Remote} interface, looks up the others' through the registry and talks to them by ordinary
 * RMI calls with arrays and small serializable objects. {@link Rank} drives the phases:
 * {@link #peer} (export), {@link #setup} (input, not timed), {@link #run} (the timed compute phase, communication
 * included), {@link #check} (the answer against a sequential computation or an invariant, not timed).
 */
public interface App {

    /**
     * Problem sizes by name: {@code tiny} (tests), {@code comm} (plain RMI mostly communicates), {@code compute} (the
     * ranks mostly compute, for seconds: with 2 ranks a compute phase of 1-4 s and a run of 2-8 s here, long enough
     * that each JVM's fixed start-up cost is not what its CPU time measures).
     */
    Map<String, String> sizes();

    /** The remote object this rank offers its peers (exported by {@link Rank}). */
    Remote peer(Ctx ctx) throws Exception;

    /** Builds this rank's input; not timed. */
    void setup(Ctx ctx) throws Exception;

    /** The timed phase. */
    void run(Ctx ctx) throws Exception;

    /** Null when this rank's part of the answer is right, otherwise what is wrong; not timed. */
    String check(Ctx ctx) throws Exception;

    /** The app by its name: sor, asp, leq, radix, water, hamming, paraffin. */
    static App byName(String name) {
        switch (name) {
            case "sor": return new Sor();
            case "asp": return new Asp();
            case "leq": return new Leq();
            case "radix": return new Radix();
            case "water": return new Water();
            case "hamming": return new Hamming();
            case "paraffin": return new Paraffin();
            default: throw new IllegalArgumentException("unknown app '" + name + "': known are " + Apps.NAMES);
        }
    }
}
