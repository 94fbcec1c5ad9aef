package dev.remora.bench.rmi;

import java.rmi.Remote;
import java.rmi.RemoteException;

/**
 * The remote interface of the benchmark collection ("KaRMI", section 6.1). A plain RMI interface: nothing here
 * knows about Remora. Java cannot overload on the return type alone, so {@code obj ping(obj)} is {@link #echo}.
 *
 * <p>The void kernels remember what they received in plain fields (no work on the timed path);
 * {@link #lastReceivedDigest()} lets {@code --verify} check that the arguments really arrived.
 */
public interface PingService extends Remote {

    /** Kernel {@code void ping()}. */
    void ping() throws RemoteException;

    /** Kernel {@code void ping(int,int)}. */
    void ping(int a, int b) throws RemoteException;

    /** Kernel {@code void ping(int,int,float,float)}. */
    void ping(int a, int b, float c, float d) throws RemoteException;

    /** Kernel {@code void ping(obj)}. */
    void ping(Object o) throws RemoteException;

    /** Kernel {@code obj ping(obj)}: returns its argument. */
    Object echo(Object o) throws RemoteException;

    /** Kernel {@code obj pingpong(obj)}: calls {@code back.pong(o)} before returning what the callback returned. */
    Object pingpong(Object o, Callback back) throws RemoteException;

    /** Kernel {@code obj star(obj)}: like {@link #echo}, called by many clients at once. */
    Object star(Object o) throws RemoteException;

    /** Kernel {@code throw(obj)}: always throws {@link BenchException} whose message is the digest of {@code o}. */
    void fail(Object o) throws RemoteException, BenchException;

    /**
     * Kernels {@code oneway} and {@code oneway_star}: as {@link #ping()}; the compare script's {@code +async}
     * configurations declare it one-way on the server ({@code remora.async}), the others call it synchronously.
     */
    void onewayPing() throws RemoteException;

    /** How many {@link #onewayPing} calls this server has run: a synchronous call after a one-way kernel's loop. */
    long onewayCount() throws RemoteException;

    /**
     * Kernels {@code future_now} and {@code future_late}: returns its argument, wrapped; declared as a future
     * ({@code remora.future}) in the {@code +async} configurations.
     */
    Echoed futureEcho(Object o) throws RemoteException;

    /** Kernel {@code future_sync}: the same as {@link #futureEcho}, never declared: always synchronous. */
    Echoed syncEcho(Object o) throws RemoteException;

    /** Kernel {@code future_wait1ms}: waits 1 ms (as a method doing I/O would), returns {@code i}; a future there. */
    Echoed wait1ms(int i) throws RemoteException;

    /** Kernel {@code sync_wait1ms}: the same as {@link #wait1ms}, never declared. */
    Echoed wait1msSync(int i) throws RemoteException;

    /** Digest of what the last void kernel received (see {@link Digest}), for {@code --verify}. */
    long lastReceivedDigest() throws RemoteException;

    /**
     * Opens a loopback server socket that echoes fixed-size messages on the one connection it accepts (the raw Java
     * TCP floor); returns its port.
     */
    int openRawEcho(int messageSize) throws RemoteException;

    /**
     * The server JVM's total JIT compilation time so far (ms; -1 when not reported). The client waits until it and
     * its own stop growing before timing, so compilations do not land in the measurements.
     */
    long compilationMillis() throws RemoteException;

    /**
     * The server JVM's CPU time so far, all threads (ns; -1 when not reported). Read just before and after a timed
     * loop, it gives what each call costs the server, independent of how long the machine took to wake it.
     */
    long cpuNanos() throws RemoteException;

    /**
     * This JVM's CPU time since it started, in ns (all threads, ended ones too; 10 ms resolution), or -1 when not
     * available: what start-up, class loading and the JIT cost, for the cold figure.
     */
    long lifetimeCpuNanos() throws RemoteException;

    /** Asks the server to unexport and, when started from its main, to exit shortly after this call returns. */
    void shutdown() throws RemoteException;

    /** The client side of {@code pingpong}. */
    interface Callback extends Remote {
        Object pong(Object o) throws RemoteException;
    }
}
