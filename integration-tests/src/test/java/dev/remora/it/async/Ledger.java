package dev.remora.it.async;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote interface of {@link AsyncIT}: its server declares some methods asynchronous (remora.async, remora.future). */
public interface Ledger extends Remote {
    /** One-way on the server. */
    void add(int thread, int seq) throws RemoteException;

    /** Synchronous: what {@link #add} recorded for {@code thread}, in the order it ran. */
    int[] entries(int thread) throws RemoteException;

    /** One-way; throws IllegalStateException. */
    void boom(String message) throws RemoteException;

    /** One-way; takes {@code millis}. */
    void slow(int millis) throws RemoteException;

    /** A future on the server; takes {@code millis}. */
    Summary summary(String name, int millis) throws RemoteException;

    /** Declared one-way on the server, which refuses it (it returns a value). */
    int total() throws RemoteException;

    /** Synchronous: waits until {@link #open} is called with {@code key} (at most 30 s), then returns key + "-opened". */
    String gate(String key) throws RemoteException;

    /** Synchronous: lets {@link #gate} calls of {@code key} return. */
    void open(String key) throws RemoteException;

    /** What {@link #summary} returns. */
    interface Summary {
        String name();
    }

    final class SummaryImpl implements Summary, Serializable {
        private static final long serialVersionUID = 1L;
        private final String name;

        public SummaryImpl(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Summary && ((Summary) o).name().equals(name);
        }

        @Override
        public int hashCode() {
            return 17 * name.hashCode();
        }

        @Override
        public String toString() {
            return "Summary[" + name + "]";
        }
    }
}
