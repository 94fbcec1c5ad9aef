package dev.remora.it.app;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.rmi.registry.LocateRegistry;

/**
 * {@code LookupThenCall <registryPort>}: looks {@code calc} up, prints {@code LOOKED}, waits for a line on its
 * standard input, then calls {@code calc.add(2, 3)}, prints {@code CALLED 5} and exits: what happens between a stub's
 * arrival and its first call.
 */
public final class LookupThenCall {

    private LookupThenCall() {
    }

    public static void main(String[] args) throws Exception {
        Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[0])).lookup("calc");
        System.out.println("LOOKED");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8)).readLine();
        System.out.println("CALLED " + calc.add(2, 3));
        System.out.flush();
    }
}
