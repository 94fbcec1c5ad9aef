package dev.remora.serializer.v2;

/** Version 2: drops a, keeps b, adds c, and gains a serializable superclass with readObjectNoData. */
public class Evolve extends EvolveBase {
    private static final long serialVersionUID = 7L;
    public String b;
    public long c = -1;

    @Override
    public String toString() {
        return "Evolve[b=" + b + ", c=" + c + ", base=" + baseState + "]";
    }
}
