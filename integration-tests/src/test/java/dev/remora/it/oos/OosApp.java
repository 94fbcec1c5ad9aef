package dev.remora.it.oos;

import java.io.FileInputStream;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.OutputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * An ordinary application (no Remora imports) that keeps objects in a file with {@code new ObjectOutputStream}.
 * {@code OosApp <mode> <file>}: {@code write} and {@code read} print the same description of what they wrote or
 * read (contents, identities), so two JVMs' outputs compare line by line; {@code read-filtered} sets a stream filter
 * that rejects {@link Custom}; {@code write-sub}/{@code read-sub} use the application's own stream subclasses (a
 * replaceObject and a resolveClass override). A read that fails prints {@code ERROR <exception>} and exits 3.
 */
public final class OosApp {

    /** A value with primitives. */
    static final class Point implements Serializable {
        private static final long serialVersionUID = 1L;
        final int x;
        final double y;

        Point(int x, double y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public String toString() {
            return "Point(" + x + ", " + y + ")";
        }
    }

    /** A class with its own writeObject/readObject, writing extra data after its fields. */
    static final class Custom implements Serializable {
        private static final long serialVersionUID = 1L;
        String label;
        int[] data;
        transient int doubled;
        transient String upper;

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.defaultWriteObject();
            out.writeInt(data.length * 2);
            out.writeUTF(label.toUpperCase());
            out.writeObject(new Point(-1, 0.5));
        }

        private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
            in.defaultReadObject();
            doubled = in.readInt();
            upper = in.readUTF();
            Point p = (Point) in.readObject();
            if (p.x != -1) {
                throw new IOException("custom data read back wrong: " + p);
            }
        }
    }

    /** A tree node with a back pointer (a cycle) and attributes. */
    static final class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        String name;
        Node parent;
        List<Node> children = new ArrayList<>();
        Map<String, Object> attrs = new HashMap<>();

        Node(String name, Node parent) {
            this.name = name;
            this.parent = parent;
            if (parent != null) {
                parent.children.add(this);
            }
        }
    }

    /** The root object. */
    static final class Graph implements Serializable {
        private static final long serialVersionUID = 1L;
        String title;
        List<Object> items = new ArrayList<>();
        Map<String, Object> index = new HashMap<>();
        Node root;
        Custom custom;
        Point[] points;
        Object shared;
        Object sharedAgain;
    }

    static Graph graph() {
        Graph g = new Graph();
        g.title = "graph \u00e9\u4e2d";
        g.points = new Point[] {new Point(1, 1.5), new Point(2, -2.25), null};
        g.root = new Node("root", null);
        Node a = new Node("a", g.root);
        new Node("b", g.root);
        new Node("a1", a);
        a.attrs.put("weight", 3);
        a.attrs.put("tags", new String[] {"x", "y"});
        g.root.attrs.put("self", g.root);
        g.custom = new Custom();
        g.custom.label = "custom";
        g.custom.data = new int[] {4, 5, 6};
        g.custom.doubled = 6; // what readObject computes from the custom data
        g.custom.upper = "CUSTOM";
        g.items.add("text");
        g.items.add(42);
        g.items.add(7L);
        g.items.add(g.points[0]);
        g.items.add(new double[] {0.5, 1e300});
        g.items.add(new LinkedHashMap<>(Map.of("one", 1)));
        g.items.add(null);
        g.items.add(List.of("immutable", "list"));
        g.index.put("root", g.root);
        g.index.put("custom", g.custom);
        g.index.put("bytes", new byte[] {1, 2, 3});
        g.shared = new ArrayList<>(List.of("shared", 1));
        g.sharedAgain = g.shared;
        return g;
    }

    /** A description of a graph: contents and the identities that must survive. */
    static List<String> describe(Graph g) {
        List<String> out = new ArrayList<>();
        out.add("title " + g.title);
        out.add("items " + d(g.items));
        out.add("index " + d(g.index));
        out.add("tree " + tree(g.root));
        out.add("custom " + g.custom.label + " " + Arrays.toString(g.custom.data) + " doubled=" + g.custom.doubled
                + " upper=" + g.custom.upper);
        out.add("points " + d(g.points));
        out.add("shared " + d(g.shared) + " same=" + (g.shared == g.sharedAgain));
        out.add("identity items[3]==points[0] " + (g.items.get(3) == g.points[0]));
        out.add("identity index.root==root " + (g.index.get("root") == g.root));
        out.add("identity index.custom==custom " + (g.index.get("custom") == g.custom));
        out.add("identity root.self==root " + (g.root.attrs.get("self") == g.root));
        out.add("identity a.parent==root " + (g.root.children.get(0).parent == g.root));
        return out;
    }

    private static String tree(Node n) {
        StringBuilder sb = new StringBuilder(n.name).append(" parent=").append(n.parent == null ? "-" : n.parent.name)
                .append(" attrs=");
        Map<String, Object> attrs = new TreeMap<>(n.attrs);
        attrs.remove("self");
        sb.append(d(attrs)).append(" {");
        for (Node c : n.children) {
            sb.append(' ').append(tree(c));
        }
        return sb.append(" }").toString();
    }

    private static String d(Object o) {
        if (o == null) {
            return "null";
        }
        if (o instanceof Object[]) {
            StringBuilder sb = new StringBuilder(o.getClass().getSimpleName()).append('[');
            for (Object e : (Object[]) o) {
                sb.append(d(e)).append(' ');
            }
            return sb.append(']').toString();
        }
        if (o instanceof byte[]) {
            return "byte" + Arrays.toString((byte[]) o);
        }
        if (o instanceof double[]) {
            return "double" + Arrays.toString((double[]) o);
        }
        if (o instanceof Map) {
            StringBuilder sb = new StringBuilder("{");
            for (Map.Entry<?, ?> e : new TreeMap<>((Map<?, ?>) o).entrySet()) {
                Object v = e.getValue();
                sb.append(e.getKey()).append('=').append(v instanceof Node ? "Node " + ((Node) v).name
                        : v instanceof Custom ? "Custom" : d(v)).append(' ');
            }
            return sb.append('}').toString();
        }
        if (o instanceof List) {
            StringBuilder sb = new StringBuilder("(");
            for (Object e : (List<?>) o) {
                sb.append(d(e)).append(' ');
            }
            return sb.append(')').toString();
        }
        return o.getClass().getSimpleName() + ":" + o;
    }

    public static void main(String[] args) throws Exception {
        String mode = args[0];
        String file = args[1];
        try {
            switch (mode) {
                case "write":
                    try (ObjectOutputStream out = new ObjectOutputStream(new FileOutputStream(file))) {
                        print(write(out));
                    }
                    break;
                case "write-sub":
                    try (ObjectOutputStream out = new Redacting(new FileOutputStream(file))) {
                        out.writeObject(new ArrayList<>(List.of("public", "secret")));
                    }
                    System.out.println("subclass wrote");
                    break;
                case "read":
                    try (ObjectInputStream in = new ObjectInputStream(new FileInputStream(file))) {
                        print(read(in));
                    }
                    break;
                case "read-filtered":
                    try (ObjectInputStream in = new ObjectInputStream(new FileInputStream(file))) {
                        in.setObjectInputFilter(info -> info.serialClass() == Custom.class
                                ? ObjectInputFilter.Status.REJECTED : ObjectInputFilter.Status.UNDECIDED);
                        print(read(in));
                    }
                    break;
                case "read-sub-all":
                    try (Remapping in = new Remapping(new FileInputStream(file))) {
                        print(read(in));
                        System.out.println("resolveClass " + in.names);
                    }
                    break;
                case "read-sub":
                    try (Resolving in = new Resolving(new FileInputStream(file))) {
                        System.out.println("read " + in.readObject() + " resolveClass called " + (in.resolved > 0));
                    }
                    break;
                default:
                    throw new IllegalArgumentException(mode);
            }
        } catch (Exception e) {
            System.out.println("ERROR " + e.getClass().getName() + ": " + e.getMessage());
            System.out.flush();
            System.exit(3);
        }
    }

    private static void print(List<String> lines) {
        for (String l : lines) {
            System.out.println(l);
        }
    }

    /** Writes a graph, data between objects, a back reference, a reset, an unshared object; returns the record. */
    static List<String> write(ObjectOutputStream out) throws IOException {
        Graph g = graph();
        List<String> lines = new ArrayList<>(describe(g));
        out.writeObject(g);
        out.writeInt(12345);
        out.writeUTF("between");
        out.write(new byte[] {9, 8, 7});
        out.writeLong(Long.MIN_VALUE);
        out.writeDouble(Math.PI);
        out.writeBoolean(true);
        out.writeObject(g.shared);
        out.flush();
        out.writeUnshared(g.points[1]);
        out.writeObject(g.points[1]);
        out.reset();
        out.writeObject(g.shared);
        out.writeObject(null);
        out.writeObject(new int[][] {{1}, {2, 3}});
        out.writeObject("last");
        lines.add("primitives 12345 between [9, 8, 7] " + Long.MIN_VALUE + " " + Math.PI + " true");
        lines.add("back reference same=true");
        lines.add("unshared " + g.points[1] + " then shared copy distinct=true");
        lines.add("after reset " + d(g.shared) + " same=false");
        lines.add("null null");
        lines.add("int[][] [[1], [2, 3]]");
        lines.add("last last");
        return lines;
    }

    static List<String> read(ObjectInputStream in) throws IOException, ClassNotFoundException {
        Graph g = (Graph) in.readObject();
        List<String> lines = new ArrayList<>(describe(g));
        int i = in.readInt();
        String s = in.readUTF();
        byte[] b = new byte[3];
        in.readFully(b);
        long l = in.readLong();
        double dd = in.readDouble();
        boolean z = in.readBoolean();
        lines.add("primitives " + i + " " + s + " " + Arrays.toString(b) + " " + l + " " + dd + " " + z);
        lines.add("back reference same=" + (in.readObject() == g.shared));
        Object unshared = in.readUnshared();
        Object copy = in.readObject();
        lines.add("unshared " + unshared + " then shared copy distinct=" + (unshared != copy));
        Object after = in.readObject();
        lines.add("after reset " + d(after) + " same=" + (after == g.shared));
        lines.add("null " + in.readObject());
        lines.add("int[][] " + Arrays.deepToString((int[][]) in.readObject()));
        lines.add("last " + in.readObject());
        return lines;
    }

    /** The application's own writer: replaces "secret" (its hook must keep working under the agent). */
    static final class Redacting extends ObjectOutputStream {
        Redacting(OutputStream out) throws IOException {
            super(out);
            enableReplaceObject(true);
        }

        @Override
        protected Object replaceObject(Object obj) {
            return "secret".equals(obj) ? "redacted" : obj;
        }
    }

    /**
     * The application's own reader that decides: resolveClass through its own rule (recording the names it was
     * asked for), and resolveObject turning "last" into "resolved last".
     */
    static final class Remapping extends ObjectInputStream {
        final java.util.TreeSet<String> names = new java.util.TreeSet<>();

        Remapping(InputStream in) throws IOException {
            super(in);
            enableResolveObject(true);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            names.add(desc.getName());
            return Class.forName(desc.getName(), false, OosApp.class.getClassLoader());
        }

        @Override
        protected Object resolveObject(Object obj) {
            return "last".equals(obj) ? "resolved last" : obj;
        }
    }

    /** The application's own reader: counts resolveClass calls. */
    static final class Resolving extends ObjectInputStream {
        int resolved;

        Resolving(InputStream in) throws IOException {
            super(in);
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            resolved++;
            return super.resolveClass(desc);
        }
    }
}
