package dev.remora.bench.jmh.serializer;

/**
 * Prints bytes per call (type already known on the connection) for each library and object:
 * {@code java -cp bench/target/benchmarks.jar dev.remora.bench.jmh.serializer.SerializerBytes}.
 */
public final class SerializerBytes {
    private SerializerBytes() {
    }

    public static void main(String[] args) throws Exception {
        String[] objects = {"null", "int4null2", "int32", "tree15", "float50", "float5000", "byte100000", "graph"};
        String[] libs = {"remora", "remoraCallTypes", "jdk", "kryo", "fory"};
        System.out.printf("%-12s", "object");
        for (String l : libs) {
            System.out.printf("%16s", l);
        }
        System.out.println();
        for (String o : objects) {
            System.out.printf("%-12s", o);
            for (String l : libs) {
                Codecs c = Codecs.of(l);
                Object v = BenchObjects.make(o);
                c.write(v);
                System.out.printf("%16d", c.write(v));
            }
            System.out.println();
        }
    }
}
