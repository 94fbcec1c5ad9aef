package dev.remora.bench.jmh.serializer;

import com.esotericsoftware.kryo.Kryo;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import dev.remora.serializer.ReadTypeTable;
import dev.remora.serializer.RemoraObjectInput;
import dev.remora.serializer.RemoraObjectOutput;
import dev.remora.serializer.SerializerOptions;
import dev.remora.serializer.TypeCacheMode;
import dev.remora.serializer.WriteTypeTable;
import org.apache.fory.Fory;
import org.apache.fory.config.Language;
import org.apache.fory.memory.MemoryBuffer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.Arrays;

/**
 * One serializer under test, used the way an RMI call would: {@link #write} marshals one object into a reusable
 * buffer and returns the byte count, {@link #read} unmarshals the bytes captured by {@link #capture()}.
 */
abstract class Codecs {
    byte[] captured;
    int capturedLength;

    abstract int write(Object o) throws Exception;

    abstract Object read() throws Exception;

    /** Keeps the last written bytes for read(). */
    abstract void capture();

    static Codecs of(String name) throws IOException {
        switch (name) {
            case "jdk": return new Jdk();
            case "remora": return new Remora(TypeCacheMode.CONNECTION);
            case "remoraCallTypes": return new Remora(TypeCacheMode.CALL);
            case "kryo": return new KryoCodec();
            case "fory": return new ForyCodec();
            default: throw new IllegalArgumentException(name);
        }
    }

    /** JDK serialization with a fresh stream per call, as RMI does. */
    static final class Jdk extends Codecs {
        private final ByteArrayOutputStream bos = new ByteArrayOutputStream(1024);

        @Override
        int write(Object o) throws IOException {
            bos.reset();
            ObjectOutputStream out = new ObjectOutputStream(bos);
            out.writeObject(o);
            out.flush();
            return bos.size();
        }

        @Override
        void capture() {
            captured = bos.toByteArray();
            capturedLength = captured.length;
        }

        @Override
        Object read() throws Exception {
            return new ObjectInputStream(new ByteArrayInputStream(captured, 0, capturedLength)).readObject();
        }
    }

    /** Remora: one stream pair per connection, reused; handles reset per call, types kept (or not). */
    static final class Remora extends Codecs {
        private final RemoraObjectOutput out;
        private final RemoraObjectInput in;

        Remora(TypeCacheMode mode) throws IOException {
            SerializerOptions o = SerializerOptions.DEFAULTS.withTypeCache(mode);
            out = new RemoraObjectOutput(new WriteTypeTable(), o);
            in = new RemoraObjectInput(new ReadTypeTable(), o);
        }

        @Override
        int write(Object o) throws IOException {
            out.beginCall();
            out.writeObject(o);
            out.finishCall();
            return out.length();
        }

        @Override
        void capture() {
            captured = Arrays.copyOfRange(out.array(), out.offset(), out.offset() + out.length());
            capturedLength = captured.length;
        }

        @Override
        Object read() throws Exception {
            in.beginCall(captured, 0, capturedLength);
            Object r = in.readObject();
            in.endCall();
            return r;
        }

        /** write then read this call's own message: the reader learns types as a peer would. */
        Object writeRead(Object o) throws Exception {
            out.beginCall();
            out.writeObject(o);
            out.finishCall();
            in.beginCall(out.array(), out.offset(), out.length());
            Object r = in.readObject();
            in.endCall();
            return r;
        }
    }

    /** Kryo 5 with registered classes and references on (the graphs share objects and have cycles). */
    static final class KryoCodec extends Codecs {
        private final Kryo kryo = new Kryo();
        private final Output output = new Output(1024, -1);
        private final Input input = new Input();

        KryoCodec() {
            kryo.setRegistrationRequired(true);
            kryo.setReferences(true);
            for (Class<?> c : BenchObjects.CLASSES) {
                kryo.register(c);
            }
        }

        @Override
        int write(Object o) {
            output.setPosition(0);
            kryo.writeClassAndObject(output, o);
            return output.position();
        }

        @Override
        void capture() {
            captured = output.toBytes();
            capturedLength = captured.length;
        }

        @Override
        Object read() {
            input.setBuffer(captured, 0, capturedLength);
            return kryo.readClassAndObject(input);
        }
    }

    /** Apache Fory (Java mode) with registered classes and reference tracking, reusing one buffer. */
    static final class ForyCodec extends Codecs {
        static {
            org.apache.fory.logging.LoggerFactory.disableLogging();
        }

        private final Fory fory = Fory.builder().withLanguage(Language.JAVA).requireClassRegistration(true)
                .withRefTracking(true).build();
        private final MemoryBuffer buffer = MemoryBuffer.newHeapBuffer(1024);
        private MemoryBuffer readBuffer;

        ForyCodec() {
            for (Class<?> c : BenchObjects.CLASSES) {
                fory.register(c);
            }
        }

        @Override
        int write(Object o) {
            buffer.writerIndex(0);
            fory.serialize(buffer, o);
            return buffer.writerIndex();
        }

        @Override
        void capture() {
            captured = buffer.getBytes(0, buffer.writerIndex());
            capturedLength = captured.length;
            readBuffer = MemoryBuffer.fromByteArray(captured);
        }

        @Override
        Object read() {
            readBuffer.readerIndex(0);
            return fory.deserialize(readBuffer);
        }
    }
}
