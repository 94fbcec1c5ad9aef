package dev.remora.it.app;

import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

/**
 * {@code RemoteBinder <registryPort>}: with {@code registry} as the argument, creates a registry on the port, prints
 * {@code READY} and serves until killed; otherwise exports a {@link CalcServer} and binds it as "calc" in the registry
 * of another JVM on that port, prints {@code READY} and serves until killed.
 */
public final class RemoteBinder {

    private RemoteBinder() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        Registry registry;
        if (args.length > 1 && args[1].equals("registry")) {
            registry = LocateRegistry.createRegistry(port);
        } else {
            CalcServer impl = new CalcServer();
            registry = LocateRegistry.getRegistry("127.0.0.1", port);
            registry.rebind("calc", UnicastRemoteObject.exportObject(impl, 0));
        }
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
