package dev.remora.serializer;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamClass;
import java.io.StreamCorruptedException;

/**
 * An {@link ObjectStreamClass} written as an object ({@link Wire#T_DESC}). The JDK writes it as a class descriptor
 * and reads it back as an ObjectStreamClass, also when the class is missing on the reading side (its
 * {@code forClass()} is then null and an instance of it fails to read). Only the JDK can make such a descriptor, so
 * the value travels as the JDK's own serialization of it, written and read by streams of this package (which Remora's
 * hooks leave to the JDK), with the reading stream's class resolution.
 */
final class JdkDescriptors {
    /** How the reading stream resolves classes. */
    interface Resolver {
        Class<?> resolve(ObjectStreamClass desc) throws IOException, ClassNotFoundException;
    }

    private JdkDescriptors() {
    }

    static byte[] write(ObjectStreamClass desc) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream(128);
        try (Out out = new Out(b)) {
            out.writeObject(desc);
        }
        return b.toByteArray();
    }

    /**
     * Reads a descriptor written by {@link #write}. Nothing else is read: the bytes must hold one class descriptor, and
     * a filter refuses any object or array inside it (a descriptor's class annotations could hold any), then asks
     * {@code filter} (the reading stream's, may be null) about the described classes, as the JDK's reader would.
     */
    static ObjectStreamClass read(byte[] b, Resolver resolver, ObjectInputFilter filter) throws IOException {
        if (b.length < 5 || (b[0] & 0xff) != 0xac || (b[1] & 0xff) != 0xed || b[2] != 0 || b[3] != 5
                || (b[4] != 0x72 && b[4] != 0x7d)) { // stream header, then TC_CLASSDESC or TC_PROXYCLASSDESC
            throw new StreamCorruptedException("a class descriptor value does not hold a class descriptor");
        }
        try (In in = new In(new ByteArrayInputStream(b), resolver)) {
            in.setObjectInputFilter(info -> {
                if (info.depth() > 1 || info.arrayLength() >= 0) {
                    return ObjectInputFilter.Status.REJECTED;
                }
                return filter == null ? ObjectInputFilter.Status.UNDECIDED : filter.checkInput(info);
            });
            Object o = in.readObject();
            if (!(o instanceof ObjectStreamClass)) {
                throw new StreamCorruptedException("a class descriptor value holds something else");
            }
            return (ObjectStreamClass) o;
        } catch (ClassNotFoundException | RuntimeException e) {
            // a descriptor whose class is missing reads without one: this is another failure
            throw corrupted(e);
        } catch (IOException e) {
            throw e.getMessage() == null ? corrupted(e) : e;
        }
    }

    private static StreamCorruptedException corrupted(Exception e) {
        StreamCorruptedException x = new StreamCorruptedException("a class descriptor value could not be read: " + e);
        x.initCause(e);
        return x;
    }

    private static final class Out extends ObjectOutputStream {
        Out(ByteArrayOutputStream b) throws IOException {
            super(b);
        }
    }

    private static final class In extends ObjectInputStream {
        private final Resolver resolver;

        In(ByteArrayInputStream b, Resolver resolver) throws IOException {
            super(b);
            this.resolver = resolver;
        }

        @Override
        protected Class<?> resolveClass(ObjectStreamClass desc) throws IOException, ClassNotFoundException {
            return resolver.resolve(desc);
        }
    }
}
