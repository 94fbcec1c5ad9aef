package remora.it.modular.api;

/** An application exception of the remote interface's package. */
public final class Refused extends Exception {
    private static final long serialVersionUID = 1L;

    public Refused(String message) {
        super(message);
    }
}
