package dev.remora.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;

/**
 * {@code IdleClient <registryPort>}: calls {@code calc.add(2, 3)}, prints {@code CALLED 5}, then keeps its connection
 * idle until a line on its standard input (or its end): a client the server exits under.
 */
public final class IdleClient {

    private IdleClient() {
    }

    public static void main(String[] args) throws Exception {
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("calc");
        System.out.println("CALLED " + calc.add(2, 3));
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
    }
}
