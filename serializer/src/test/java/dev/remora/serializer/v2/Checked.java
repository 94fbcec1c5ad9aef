package dev.remora.serializer.v2;

import java.io.Serializable;

/** A record whose canonical constructor throws (RecordFidelityTest). */
public record Checked(int v) implements Serializable {
    public Checked {
        if (v < 0) {
            throw new IllegalArgumentException("negative " + v);
        }
        if (v == 99) {
            throw new OutOfMemoryError("from the constructor");
        }
        if (v == 98) {
            throw new StackOverflowError("thrown by the constructor"); // as jtreg's ThrowingConstructorTest
        }
    }
}
