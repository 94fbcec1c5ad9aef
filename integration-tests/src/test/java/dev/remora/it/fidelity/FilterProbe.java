package dev.remora.it.fidelity;

import java.io.ObjectInputFilter;
import java.rmi.registry.LocateRegistry;
import java.rmi.registry.Registry;
import java.rmi.server.UnicastRemoteObject;
import java.util.ArrayList;
import java.util.List;

/**
 * A remote object exported with its own {@link ObjectInputFilter} that records every check made while its call's
 * argument is read, as {@code UnicastRemoteObject.exportObject(impl, port, filter)} sets it (the JDK's jtreg
 * FilterUROTest does the same, counting). {@code FilterProbe <registryPort>} serves it until killed; {@code
 * FilterProbe client <registryPort> <graphs>} sends each of {@link Graphs}' graphs and prints the checks it caused,
 * one line per call: the output must be the same with and without Remora.
 */
public final class FilterProbe implements Probe {
    private final List<String> recorded = new ArrayList<>();

    private ObjectInputFilter.Status record(ObjectInputFilter.FilterInfo info) {
        Class<?> c = info.serialClass();
        synchronized (recorded) {
            recorded.add((c == null ? "-" : c.getName()) + " " + info.arrayLength() + " d" + info.depth() + " r"
                    + info.references());
        }
        return ObjectInputFilter.Status.UNDECIDED;
    }

    @Override
    public List<String> checks(Object arg) {
        synchronized (recorded) {
            List<String> l = new ArrayList<>(recorded);
            recorded.clear();
            return l;
        }
    }

    public static void main(String[] args) throws Exception {
        if (args[0].equals("client")) {
            Probe p = (Probe) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[1])).lookup("probe");
            int graphs = Integer.parseInt(args[2]);
            List<Object> hard = Graphs.hardValues();
            for (int i = 0; i < hard.size(); i++) {
                System.out.println("hard " + i + ": " + p.checks(hard.get(i)));
            }
            for (long seed = 1; seed <= graphs; seed++) {
                System.out.println("graph " + seed + ": " + p.checks(Graphs.graph(seed)));
                // the same graph again: the connection has its types, the call's stream does not
                System.out.println("again " + seed + ": " + p.checks(Graphs.graph(seed)));
            }
            System.out.println("OK " + graphs);
            return;
        }
        FilterProbe impl = new FilterProbe();
        Probe stub = (Probe) UnicastRemoteObject.exportObject(impl, 0, impl::record);
        Registry registry = LocateRegistry.createRegistry(Integer.parseInt(args[0]));
        registry.rebind("probe", stub);
        System.out.println("READY");
        System.out.flush();
        Thread.currentThread().join();
    }
}
