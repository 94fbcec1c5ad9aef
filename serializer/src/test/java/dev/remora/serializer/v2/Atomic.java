package dev.remora.serializer.v2;

import dev.remora.serializer.Peek;
import java.io.Serializable;

/** Its field zebra is an Integer in v1 and a Float in v2; peek refers back to it (CastDetailTest). */
public class Atomic implements Serializable {
    private static final long serialVersionUID = 0L;
    public int prim = 5;
    public String name = "a";
    public Peek peek = new Peek(this); // read before zebra: fields of reference type go in name order
    public Float zebra;

    @Override
    public String toString() {
        return "Atomic(" + prim + ", " + name + ", " + zebra + ")";
    }
}
