package dev.remora.bench.rmi;

import java.io.Serializable;

/** Seed 000's "4 int" object. */
public final class Int4 implements Serializable {

    private static final long serialVersionUID = 1L;

    public int a;
    public int b;
    public int c;
    public int d;

    public Int4() {
    }

    public Int4(int a, int b, int c, int d) {
        this.a = a;
        this.b = b;
        this.c = c;
        this.d = d;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Int4)) {
            return false;
        }
        Int4 x = (Int4) other;
        return a == x.a && b == x.b && c == x.c && d == x.d;
    }

    @Override
    public int hashCode() {
        return ((a * 31 + b) * 31 + c) * 31 + d;
    }
}
