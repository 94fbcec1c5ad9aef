package dev.remora.it.conformance;

import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;

/** The remote interface of the conformance scenarios (what the JDK's jtreg RMI tests check, in the project's terms). */
public interface Conf extends Remote {
    /** Throws a {@link PingException} from a method named {@code __BAR__} (as jtreg's ServerStackTrace). */
    void ping() throws RemoteException, PingException;

    /** Throws a RemoteException (as jtreg's ClientStackTrace). */
    void remote() throws RemoteException;

    /** A result whose readObject throws an Error or a RuntimeException (as jtreg's CheckUnmarshalOnStopThread). */
    Object poison(boolean error) throws RemoteException;

    void take(Object o) throws RemoteException;

    /** A result that cannot be serialized. */
    Object unserializable() throws RemoteException;

    /** A result whose writeObject throws a RuntimeException. */
    Object bombResult() throws RemoteException;

    /** An exception that cannot be serialized. */
    void unserializableException() throws RemoteException, BadException;

    Object echo(Object o) throws RemoteException;

    /**
     * A load-testing tool's remote engine: makes the calling thread the engine's owner (with a ThreadLocal), taking
     * {@code millis}, longer than Remora's hand-off time.
     */
    void configure(int millis) throws RemoteException;

    /** Null if this call runs on the owner with its ThreadLocal, else what differs. */
    String check() throws RemoteException;

    /** Returns after {@code millis}. */
    int sleep(int millis) throws RemoteException;

    class PingException extends Exception {
        private static final long serialVersionUID = 1L;
    }

    class BadException extends Exception {
        private static final long serialVersionUID = 1L;
        @SuppressWarnings("unused")
        private final Object notSerializable = new Object();

        public BadException(String m) {
            super(m);
        }
    }

    class PoisonError extends Error {
        private static final long serialVersionUID = 1L;

        public PoisonError(String m) {
            super(m);
        }
    }

    /** Throws from readObject: a {@link PoisonError}, or an IllegalStateException. */
    class Poison implements Serializable {
        private static final long serialVersionUID = 1L;
        private final boolean error;

        public Poison(boolean error) {
            this.error = error;
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            if (error) {
                throw new PoisonError("poisoned result");
            }
            throw new IllegalStateException("poisoned result");
        }
    }

    /** Throws a RuntimeException from writeObject (as jtreg's RuntimeExceptionParameter). */
    class Bomb implements Serializable {
        private static final long serialVersionUID = 1L;

        private void writeObject(ObjectOutputStream out) throws IOException {
            throw new IllegalArgumentException("bomb");
        }
    }

    /** The implementation. */
    final class Impl implements Conf {
        @Override
        public void ping() throws PingException {
            __BAR__();
        }

        @SuppressWarnings("checkstyle:MethodName")
        private static void __BAR__() throws PingException {
            throw new PingException();
        }

        @Override
        public void remote() throws RemoteException {
            throw new RemoteException("This is a test remote exception");
        }

        @Override
        public Object poison(boolean error) {
            return new Poison(error);
        }

        @Override
        public void take(Object o) {
        }

        @Override
        public Object unserializable() {
            return new Object();
        }

        @Override
        public Object bombResult() {
            return new Bomb();
        }

        @Override
        public void unserializableException() throws BadException {
            throw new BadException("cannot travel");
        }

        @Override
        public Object echo(Object o) {
            return o;
        }

        private volatile Thread owner;
        private final ThreadLocal<String> configured = new ThreadLocal<>();

        @Override
        public void configure(int millis) {
            owner = Thread.currentThread();
            configured.set("configured");
            sleep(millis);
        }

        @Override
        public String check() {
            if (owner != Thread.currentThread()) {
                return "configured on another thread";
            }
            return configured.get() == null ? "ThreadLocal empty" : null;
        }

        @Override
        public int sleep(int millis) {
            try {
                Thread.sleep(millis);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return millis;
        }
    }
}
