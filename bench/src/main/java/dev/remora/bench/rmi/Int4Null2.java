package dev.remora.bench.rmi;

import java.io.Serializable;
import java.util.Objects;

/** Seed 000's "4 int, 2 null" object: four ints and two references that are null in the benchmark. */
public final class Int4Null2 implements Serializable {

    private static final long serialVersionUID = 1L;

    public int a;
    public int b;
    public int c;
    public int d;
    public Object left;
    public Object right;

    public Int4Null2() {
    }

    public Int4Null2(int a, int b, int c, int d) {
        this.a = a;
        this.b = b;
        this.c = c;
        this.d = d;
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Int4Null2)) {
            return false;
        }
        Int4Null2 x = (Int4Null2) other;
        return a == x.a && b == x.b && c == x.c && d == x.d
                && Objects.deepEquals(left, x.left) && Objects.deepEquals(right, x.right);
    }

    @Override
    public int hashCode() {
        return ((a * 31 + b) * 31 + c) * 31 + d;
    }
}
