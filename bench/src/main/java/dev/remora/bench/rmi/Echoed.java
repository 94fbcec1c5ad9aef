package dev.remora.bench.rmi;

import java.io.Serializable;
import java.util.Objects;

/**
 * What the asynchronous kernels' methods return: an interface, so that a server declaring them {@code remora.future}
 * can hand the client a future standing for it (the futures of "Implementing Asynchronous RMI in Java"). Not remote: it travels by value.
 */
public interface Echoed {
    /** The value the call returned. */
    Object value();

    /** The plain implementation sent by the server. */
    final class Value implements Echoed, Serializable {
        private static final long serialVersionUID = 1L;
        private final Object value;

        public Value(Object value) {
            this.value = value;
        }

        @Override
        public Object value() {
            return value;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Echoed && Objects.deepEquals(value, ((Echoed) o).value());
        }

        @Override
        public int hashCode() {
            return Objects.hashCode(value);
        }
    }
}
