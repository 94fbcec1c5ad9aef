package remora.it.plugin;

import java.io.Serializable;

/** A value whose text names the class loader of its class, so that a class of the wrong loader shows. */
public class Value implements Serializable {
    private static final long serialVersionUID = 1L;
    public final int n;
    public final Part part;

    public Value(int n) {
        this.n = n;
        this.part = new Part("p" + n);
    }

    /** A second class of the plugin, reached through a field. */
    public static final class Part implements Serializable {
        private static final long serialVersionUID = 1L;
        final String s;

        Part(String s) {
            this.s = s;
        }

        @Override
        public String toString() {
            return s + "@" + getClass().getClassLoader().getName();
        }
    }

    @Override
    public String toString() {
        return "Value(" + n + ", " + part + ")@" + getClass().getClassLoader().getName();
    }
}
