package dev.remora.serializer;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.Serializable;

/** Holds an object and, when read, leaves it in {@link #seen}: what a reader sees of an object it refers back to. */
public final class Peek implements Serializable {
    private static final long serialVersionUID = 1L;
    public static volatile Object seen;
    private final Object ref;

    public Peek(Object ref) {
        this.ref = ref;
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
        in.defaultReadObject();
        seen = ref;
    }
}
