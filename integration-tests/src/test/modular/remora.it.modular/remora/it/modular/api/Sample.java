package remora.it.modular.api;

import java.io.Serializable;
import java.util.Arrays;

/** A value class in the same package: not open to anyone, exported to java.rmi only. */
public final class Sample implements Serializable {
    private static final long serialVersionUID = 1L;

    private final int n;
    private final String name;
    private final int[] values;
    /** A value of a class the caller chose, of any package of the module. */
    private final Serializable note;

    public Sample(int n, String name, int[] values, Serializable note) {
        this.n = n;
        this.name = name;
        this.values = values;
        this.note = note;
    }

    public Sample twice() {
        int[] v = values.clone();
        for (int i = 0; i < v.length; i++) {
            v[i] *= 2;
        }
        return new Sample(n * 2, name + name, v, note);
    }

    @Override
    public String toString() {
        return "Sample(" + n + ", " + name + ", " + Arrays.toString(values) + ", " + note + ")";
    }
}
