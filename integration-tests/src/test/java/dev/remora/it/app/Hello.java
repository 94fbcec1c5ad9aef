package dev.remora.it.app;

import java.rmi.Remote;
import java.rmi.RemoteException;

/**
 * The classic tutorial's remote interface, for tests whose point is how a JVM is set up (a SecurityManager, a global
 * socket factory) rather than what its calls carry.
 */
public interface Hello extends Remote {
    String hi(String s) throws RemoteException;

    /** Answers {@code "hi " + s}. */
    final class Impl implements Hello {
        @Override
        public String hi(String s) {
            return "hi " + s;
        }
    }
}
