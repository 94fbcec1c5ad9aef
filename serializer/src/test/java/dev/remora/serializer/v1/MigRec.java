package dev.remora.serializer.v1;

import java.io.Serializable;

/** Becomes an ordinary class in v2 (RecordMigrationTest). */
public record MigRec(int a, Object b) implements Serializable {
    private static final long serialVersionUID = 1L;
}
