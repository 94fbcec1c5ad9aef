package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.util.Arrays;
import java.util.TreeMap;

/**
 * RMI method hash to Method for one implementation class, built once per class exactly as
 * {@code UnicastServerRef}'s HashToMethod_Maps does (every method of every Remote interface of the class and its
 * superclasses, hashed by {@code sun.rmi.server.Util.computeMethodHash}). Looked up by binary search over a sorted
 * {@code long[]}: no boxing per call.
 */
final class RemoteMethods {
    private static final ClassValue<RemoteMethods> BY_CLASS = new ClassValue<RemoteMethods>() {
        @Override
        protected RemoteMethods computeValue(Class<?> type) {
            return new RemoteMethods(type);
        }
    };

    private final long[] hashes;
    private final Method[] methods;

    private RemoteMethods(Class<?> implClass) {
        TreeMap<Long, Method> map = new TreeMap<>();
        for (Class<?> c = implClass; c != null; c = c.getSuperclass()) {
            for (Class<?> intf : c.getInterfaces()) {
                if (Remote.class.isAssignableFrom(intf)) {
                    for (Method m : intf.getMethods()) {
                        try {
                            m.setAccessible(true);
                        } catch (RuntimeException e) {
                            // as the JDK: a public method of a public interface works without it
                        }
                        try {
                            map.put(RmiInternals.methodHash(m), m);
                        } catch (Throwable t) {
                            throw new IllegalStateException("cannot hash " + m, t);
                        }
                    }
                }
            }
        }
        hashes = new long[map.size()];
        methods = new Method[map.size()];
        int i = 0;
        for (java.util.Map.Entry<Long, Method> e : map.entrySet()) {
            hashes[i] = e.getKey();
            methods[i++] = e.getValue();
        }
    }

    static RemoteMethods of(Class<?> implClass) {
        return BY_CLASS.get(implClass);
    }

    /** Every remote method, in hash order (not to be changed). */
    Method[] methods() {
        return methods;
    }

    /** The RMI hash of {@code methods()[i]}. */
    long hash(int i) {
        return hashes[i];
    }

    /** The method with RMI hash {@code hash}, or null. */
    Method find(long hash) {
        int i = Arrays.binarySearch(hashes, hash);
        return i >= 0 ? methods[i] : null;
    }
}
