package dev.remora.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;

/**
 * {@code ExitServer <registryPort>}: creates a registry, binds "calc", prints {@code READY}, and on a line on its
 * standard input calls {@code System.exit(3)}: an RMI server whose accept loops and idle connections are blocked in
 * socket reads when it exits.
 */
public final class ExitServer {

    private ExitServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = Integer.parseInt(args[0]);
        CalcServer impl = new CalcServer();
        Registry registry = LocateRegistry.createRegistry(port);
        registry.rebind("calc", UnicastRemoteObject.exportObject(impl, 0));
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        System.exit(3);
    }
}
