package dev.remora.serializer;

import java.io.Serializable;

/** Loaded by a separate class loader in CodecTest: private and final fields, no accessors. */
public final class LoaderProbe implements Serializable {
    private final int secret;
    private final String name;
    private long counter;

    public LoaderProbe() {
        this(0, null);
    }

    public LoaderProbe(int secret, String name) {
        this.secret = secret;
        this.name = name;
        this.counter = secret * 2L;
    }

    @Override
    public String toString() {
        return secret + "/" + name + "/" + counter;
    }
}
