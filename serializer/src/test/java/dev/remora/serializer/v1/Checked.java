package dev.remora.serializer.v1;

import java.io.Serializable;

/** v2's Checked without its checks: writes values v2's constructor refuses (RecordFidelityTest). */
public record Checked(int v) implements Serializable {
}
