package dev.remora.serializer.v2;

import java.io.Serializable;

/** v1's record MigRec as an ordinary class. */
public class MigRec implements Serializable {
    private static final long serialVersionUID = 1L;
    int a;
    Object b;

    @Override
    public String toString() {
        return "MigRec[a=" + a + ", b=" + b + "]";
    }
}
