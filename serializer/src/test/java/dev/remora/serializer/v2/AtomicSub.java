package dev.remora.serializer.v2;

import dev.remora.serializer.Peek;

/** Atomic's fields, then its own: zebraSub is an Integer in v1 and a Float in v2 (CastDetailTest). */
public class AtomicSub extends AtomicOk {
    private static final long serialVersionUID = 0L;
    public long subPrim = 7;
    public Peek peekSub = new Peek(this);
    public Float zebraSub;

    @Override
    public String toString() {
        return "AtomicSub(" + subPrim + ", " + zebraSub + ", " + super.toString() + ")";
    }
}
