package dev.remora.serializer.v1;

import java.io.Serializable;

/** Becomes a record in v2 (RecordMigrationTest). */
public class MigPoint extends MigBase implements Serializable {
    private static final long serialVersionUID = 1L;
    int x;
    String label;
    Number n;

    public MigPoint(int x, String label, Number n) {
        this.x = x;
        this.label = label;
        this.n = n;
        this.base = "dropped";
    }
}
