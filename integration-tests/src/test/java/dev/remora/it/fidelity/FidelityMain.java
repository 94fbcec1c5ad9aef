package dev.remora.it.fidelity;

import dev.remora.it.app.Calc;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.rmi.registry.LocateRegistry;
import java.util.ArrayList;
import java.util.List;

/**
 * Property-based round trips as an application sees them: every value comes back as the JDK's own round trip gives
 * it back (equality and sharing, {@link Graphs#difference}).
 * <ul>
 * <li>{@code FidelityMain rmi <registryPort> <graphs>}: echoes {@link Graphs#hardValues()} and random graphs through
 * {@link dev.remora.it.app.CalcServer}'s {@code echo}.
 * <li>{@code FidelityMain streams <graphs>}: writes them with {@code new ObjectOutputStream(out)} and reads them
 * with {@code new ObjectInputStream(in)} (exact classes, which {@code remora.oos=fast} takes over), one graph per
 * stream and then all in one stream; prints the stream header it saw.
 * </ul>
 * Prints {@code OK <n>} at the end, or the first difference with its seed and exits 1.
 */
public final class FidelityMain {
    private FidelityMain() {
    }

    public static void main(String[] args) throws Exception {
        RoundTrip trip;
        int graphs;
        if (args[0].equals("rmi")) {
            Calc calc = (Calc) LocateRegistry.getRegistry("127.0.0.1", Integer.parseInt(args[1])).lookup("calc");
            trip = calc::echo;
            graphs = Integer.parseInt(args[2]);
        } else {
            trip = FidelityMain::streamRoundTrip;
            graphs = Integer.parseInt(args[1]);
            System.out.println("header " + header());
        }
        int checked = 0;
        List<Object> hard = Graphs.hardValues();
        for (int i = 0; i < hard.size(); i++) {
            check(trip, hard.get(i), "hard value " + i);
            checked++;
        }
        check(trip, hard.toArray(), "all hard values in one array");
        for (long seed = 1; seed <= graphs; seed++) {
            check(trip, Graphs.graph(seed), "graph of seed " + seed);
            checked++;
        }
        if (!args[0].equals("rmi")) {
            checked += manyInOneStream(graphs);
            for (long seed = 1; seed <= graphs; seed++) {
                sameFilterChecks(Graphs.graph(seed), "graph of seed " + seed);
            }
        }
        System.out.println("OK " + checked);
    }

    interface RoundTrip {
        Object apply(Object o) throws Exception;
    }

    private static void check(RoundTrip trip, Object o, String what) throws Exception {
        Object expected = Graphs.jdkRoundTrip(o);
        Object actual = trip.apply(o);
        String d = Graphs.difference(expected, actual);
        if (d != null) {
            System.out.println("MISMATCH " + what + ": " + d);
            System.exit(1);
        }
    }

    /**
     * A filter sees the same checks (class, array length, depth, references; not the byte counts, which belong to
     * the format) reading the stream as the JDK's reader shows it.
     */
    private static void sameFilterChecks(Object o, String what) throws Exception {
        List<String> expected = filterChecks(o, true);
        List<String> actual = filterChecks(o, false);
        if (!expected.equals(actual)) {
            int i = 0;
            while (i < expected.size() && i < actual.size() && expected.get(i).equals(actual.get(i))) {
                i++;
            }
            System.out.println("MISMATCH filter checks of " + what + " (" + expected.size() + " vs " + actual.size()
                    + " checks), first difference at check " + i + ": "
                    + (i < expected.size() ? expected.get(i) : "none") + " vs "
                    + (i < actual.size() ? actual.get(i) : "none"));
            System.exit(1);
        }
    }

    private static List<String> filterChecks(Object o, boolean jdk) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = jdk ? new ObjectOutputStream(b) { } : new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        List<String> checks = new ArrayList<>();
        ByteArrayInputStream bytes = new ByteArrayInputStream(b.toByteArray());
        try (ObjectInputStream in = jdk ? new ObjectInputStream(bytes) { } : new ObjectInputStream(bytes)) {
            in.setObjectInputFilter(info -> {
                Class<?> c = info.serialClass();
                checks.add((c == null ? "-" : c.getName()) + " " + info.arrayLength() + " d" + info.depth() + " r"
                        + info.references());
                return ObjectInputFilter.Status.UNDECIDED;
            });
            in.readObject();
        }
        return checks;
    }

    private static Object streamRoundTrip(Object o) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray()))) {
            return in.readObject();
        }
    }

    /** All graphs in one stream, written and read in turn, and also after a reset: handles span objects. */
    private static int manyInOneStream(int graphs) throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        Object[] written = new Object[graphs];
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            for (int i = 0; i < graphs; i++) {
                written[i] = Graphs.graph(1000 + i);
                out.writeObject(written[i]);
                if (i % 7 == 6) {
                    out.reset();
                }
            }
        }
        ByteArrayOutputStream j = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(j) { }) {
            for (int i = 0; i < graphs; i++) {
                out.writeObject(written[i]);
                if (i % 7 == 6) {
                    out.reset();
                }
            }
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(b.toByteArray()));
                ObjectInputStream jin = new ObjectInputStream(new ByteArrayInputStream(j.toByteArray())) { }) {
            Object[] expected = new Object[graphs];
            Object[] actual = new Object[graphs];
            for (int i = 0; i < graphs; i++) {
                expected[i] = jin.readObject();
                actual[i] = in.readObject();
            }
            // compared as one graph: sharing across objects of one stream counts too
            String d = Graphs.difference(expected, actual);
            if (d != null) {
                System.out.println("MISMATCH one stream of " + graphs + " graphs: " + d);
                System.exit(1);
            }
        }
        return graphs;
    }

    private static String header() throws Exception {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(b)) {
            out.writeObject("x");
        }
        byte[] h = b.toByteArray();
        return String.format("%02X%02X%02X%02X", h[0], h[1], h[2], h[3]);
    }
}
