package dev.remora.bench.rmi;

/** The application exception of the {@code throw(obj)} kernel: checked, serializable, carries a digest. */
public final class BenchException extends Exception {

    private static final long serialVersionUID = 1L;

    public BenchException(String message) {
        super(message);
    }
}
