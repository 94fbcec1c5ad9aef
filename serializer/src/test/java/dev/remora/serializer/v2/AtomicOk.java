package dev.remora.serializer.v2;

import java.io.Serializable;

/** A superclass whose fields read fine (CastDetailTest). */
public class AtomicOk implements Serializable {
    private static final long serialVersionUID = 0L;
    public int okPrim = 3;
    public String okName = "ok";

    @Override
    public String toString() {
        return "AtomicOk(" + okPrim + ", " + okName + ")";
    }
}
