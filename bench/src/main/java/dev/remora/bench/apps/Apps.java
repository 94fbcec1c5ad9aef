package dev.remora.bench.apps;

/** The names {@link App#byName} knows, in the report's order. */
final class Apps {
    static final String NAMES = "sor,asp,leq,radix,water,hamming,paraffin";

    private Apps() {
    }
}
