package dev.remora.serializer;

/**
 * How long a connection remembers the classes it has described ("UKA-serialization" section 3.3, "two kinds of reset").
 * The agent maps {@code remora.typecache} onto this.
 */
public enum TypeCacheMode {
    /** A class is described once per connection and named by a small id after that; objects reset per call. */
    CONNECTION,
    /** Types are forgotten on every call too, as with a fresh JDK stream per call: for measuring the gain. */
    CALL
}
