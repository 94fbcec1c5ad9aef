package dev.remora.rmi;

import dev.remora.rmi.jdk.RmiInternals;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.util.Arrays;
import java.util.Collections;
import java.util.Map;
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
        Map<Long, Method> jrmp = null;
        for (Class<?> c = implClass; c != null; c = c.getSuperclass()) {
            for (Class<?> intf : c.getInterfaces()) {
                if (Remote.class.isAssignableFrom(intf)) {
                    for (Method m : intf.getMethods()) {
                        long hash;
                        try {
                            hash = RmiInternals.methodHash(m);
                        } catch (Throwable t) {
                            throw new IllegalStateException("cannot hash " + m, t);
                        }
                        if (!m.trySetAccessible()) {
                            // a package its module exports to java.rmi only (jdk.jstatd's, a user's named module):
                            // invoke JRMP's Method, which java.rmi made accessible, as JRMP itself would
                            if (jrmp == null) {
                                jrmp = jrmpMethods(implClass);
                            }
                            Method own = jrmp.get(hash);
                            if (own != null && own.equals(m)) {
                                m = own;
                            }
                        }
                        map.put(hash, m);
                    }
                }
            }
        }
        hashes = new long[map.size()];
        methods = new Method[map.size()];
        int i = 0;
        for (Map.Entry<Long, Method> e : map.entrySet()) {
            hashes[i] = e.getKey();
            methods[i++] = e.getValue();
        }
    }

    /**
     * JRMP's methods of {@code implClass}, or none (its calls then fail as Remora's own {@code Method} does, with an
     * {@code IllegalAccessException} the caller receives).
     */
    private static Map<Long, Method> jrmpMethods(Class<?> implClass) {
        try {
            return RmiInternals.jrmpMethods(implClass);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return Collections.emptyMap();
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
