package dev.remora.serializer.v2;

import java.io.Serializable;

/** v1's MigPoint as a record, with one more component (its default when the stream lacks it). */
public record MigPoint(int x, String label, Number n, double extra) implements Serializable {
}
