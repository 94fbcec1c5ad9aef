package remora.it.modular;

import java.io.Serializable;

/** A value of a package its module exports to nobody, sent inside a {@link remora.it.modular.api.Sample}. */
public final class Note implements Serializable {
    private static final long serialVersionUID = 1L;

    private final String text;
    private final long stamp;

    public Note(String text, long stamp) {
        this.text = text;
        this.stamp = stamp;
    }

    @Override
    public String toString() {
        return "Note(" + text + ", " + stamp + ")";
    }
}
