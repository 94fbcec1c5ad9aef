package dev.remora.bench.jmh.serializer;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

import java.util.concurrent.TimeUnit;

/**
 * Serializer micro-benchmarks of the serializer issue: write, read and write+read of one object per call, for
 * Remora (per-connection type cache; {@code remoraCallTypes} forgets types every call, "UKA-serialization" Table 2), JDK
 * serialization with a fresh stream per call (as RMI does), Kryo and Fory with registered classes. Bytes per call
 * are printed at setup ("bytes: ...") and by {@link SerializerBytes}.
 *
 * <pre>java -jar bench/target/benchmarks.jar 'serializer.*' -f 1 -wi 3 -i 5 -w 1 -r 1</pre>
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Fork(1)
@Warmup(iterations = 3, time = 1)
@Measurement(iterations = 5, time = 1)
public class SerializerBench {

    @Param({"int32", "int4null2", "null", "tree15", "float50", "float5000", "byte100000", "graph"})
    public String object;

    @Param({"remora", "jdk", "kryo", "fory", "remoraCallTypes"})
    public String lib;

    private Codecs codec;
    private Object value;

    @Setup(Level.Trial)
    public void setup() throws Exception {
        codec = Codecs.of(lib);
        value = BenchObjects.make(object);
        codec.write(value); // the first call on a connection describes the types...
        codec.capture();
        codec.read(); // ...and the reader learns them
        int n = codec.write(value);
        codec.capture();
        codec.read();
        System.out.println("bytes: " + lib + " " + object + " " + n);
    }

    @Benchmark
    public int write() throws Exception {
        return codec.write(value);
    }

    @Benchmark
    public Object read() throws Exception {
        return codec.read();
    }

    @Benchmark
    public Object writeRead() throws Exception {
        if (codec instanceof Codecs.Remora) {
            return ((Codecs.Remora) codec).writeRead(value);
        }
        codec.write(value);
        codec.capture();
        return codec.read();
    }
}
