package dev.remora.rmi;

import dev.remora.rmi.wire.Frame;
import dev.remora.rmi.wire.FrameBuffer;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The asynchronous methods of one remote object, by RMI method hash: one-way methods ({@code remora.async}: the
 * caller does not wait) and future methods ({@code remora.future}: the caller gets at once an object that waits for
 * the result when first used). Made on the server at export from the declarations ({@link #of}), which refuses, with
 * one line each, a method that cannot be made asynchronous safely; sent to a client in the reply to its first call to
 * the object on a connection ({@link Frame#FLAG_DECLARES}) and read back there ({@link #read}).
 */
final class AsyncMethods {
    private final long[] oneway;
    private final long[] future;

    private AsyncMethods(long[] oneway, long[] future) {
        this.oneway = oneway;
        this.future = future;
        Arrays.sort(oneway);
        Arrays.sort(future);
    }

    boolean isOneway(long hash) {
        return oneway.length != 0 && Arrays.binarySearch(oneway, hash) >= 0;
    }

    boolean isFuture(long hash) {
        return future.length != 0 && Arrays.binarySearch(future, hash) >= 0;
    }

    int onewayCount() {
        return oneway.length;
    }

    int futureCount() {
        return future.length;
    }

    /** The declarations section of a reply (the frame's DECLARES flag is the caller's to set). */
    void write(FrameBuffer out) {
        out.writeShort(oneway.length);
        out.writeShort(future.length);
        for (long h : oneway) {
            out.writeLong(h);
        }
        for (long h : future) {
            out.writeLong(h);
        }
    }

    /** The declarations of reply frame {@code a} (flagged DECLARES). */
    static AsyncMethods read(byte[] a) {
        int n = FrameBuffer.getShort(a, Frame.HEADER) & 0xffff;
        int m = FrameBuffer.getShort(a, Frame.HEADER + 2) & 0xffff;
        long[] oneway = new long[n];
        long[] future = new long[m];
        int at = Frame.HEADER + 4;
        for (int i = 0; i < n; i++, at += 8) {
            oneway[i] = FrameBuffer.getLong(a, at);
        }
        for (int i = 0; i < m; i++, at += 8) {
            future[i] = FrameBuffer.getLong(a, at);
        }
        return new AsyncMethods(oneway, future);
    }

    /**
     * The asynchronous methods of {@code implClass} under {@code declared}, or null when it has none. Each declared
     * method that cannot be made asynchronous safely is reported once ({@link RouterListener#refused}) with the
     * reason, and stays synchronous.
     */
    static AsyncMethods of(Class<?> implClass, Declarations declared, RouterListener listener) {
        if (declared.isEmpty()) {
            return null;
        }
        RemoteMethods rm = RemoteMethods.of(implClass);
        Method[] methods = rm.methods();
        List<Long> oneway = new ArrayList<>();
        List<Long> future = new ArrayList<>();
        for (int i = 0; i < methods.length; i++) {
            Method m = methods[i];
            if (declared.names(Declarations.ONEWAY, implClass, m)) {
                String why = onewayRefusal(m);
                if (why == null) {
                    oneway.add(rm.hash(i));
                } else {
                    listener.refused("async:" + name(m), "remora.async: " + name(m) + " stays synchronous: " + why);
                }
            }
            if (declared.names(Declarations.FUTURE, implClass, m)) {
                String why = futureRefusal(m);
                if (why == null) {
                    future.add(rm.hash(i));
                } else {
                    listener.refused("future:" + name(m), "remora.future: " + name(m) + " stays synchronous: " + why);
                }
            }
        }
        if (oneway.isEmpty() && future.isEmpty()) {
            return null;
        }
        return new AsyncMethods(unbox(oneway), unbox(future));
    }

    /** Why {@code m} cannot be one-way, or null. */
    static String onewayRefusal(Method m) {
        if (m.getReturnType() != void.class) {
            return "it returns " + m.getReturnType().getTypeName() + ", and a one-way call has no result (a method"
                    + " returning an interface may be declared in remora.future)";
        }
        Class<?> app = applicationException(m);
        if (app != null) {
            return "it declares " + app.getName() + ", which its caller must see";
        }
        return null;
    }

    /** Why {@code m} cannot return a future, or null. */
    static String futureRefusal(Method m) {
        Class<?> r = m.getReturnType();
        if (r == void.class) {
            return "it returns void (a void method may be declared in remora.async)";
        }
        if (!r.isInterface()) {
            return "it returns " + r.getTypeName() + ", not an interface, which a future must implement";
        }
        if (Remote.class.isAssignableFrom(r)) {
            return "it returns the remote interface " + r.getName() + ", whose stub a future cannot stand for";
        }
        Class<?> app = applicationException(m);
        if (app != null) {
            return "it declares " + app.getName() + ", which its caller must see at the call";
        }
        return null;
    }

    /** A checked exception {@code m} declares other than RemoteException and its supertypes, or null. */
    private static Class<?> applicationException(Method m) {
        for (Class<?> e : m.getExceptionTypes()) {
            if (RuntimeException.class.isAssignableFrom(e) || Error.class.isAssignableFrom(e)
                    || e.isAssignableFrom(RemoteException.class)) {
                continue;
            }
            return e;
        }
        return null;
    }

    static String name(Method m) {
        StringBuilder sb = new StringBuilder(m.getDeclaringClass().getName()).append('#').append(m.getName())
                .append('(');
        Class<?>[] p = m.getParameterTypes();
        for (int i = 0; i < p.length; i++) {
            sb.append(i == 0 ? "" : ",").append(p[i].getTypeName());
        }
        return sb.append(')').toString();
    }

    private static long[] unbox(List<Long> l) {
        long[] a = new long[l.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = l.get(i);
        }
        return a;
    }

    /**
     * The server's declarations ({@code remora.async}, {@code remora.future}): entries {@code pkg.Class#method} (every
     * overload) or {@code pkg.Class#method(type,...)} (types as {@link Class#getTypeName}: {@code int},
     * {@code java.lang.String}, {@code byte[]}), naming a method of a remote interface or of an implementation class
     * (then the remote method it implements).
     */
    static final class Declarations {
        static final int ONEWAY = 0;
        static final int FUTURE = 1;
        static final Declarations NONE = new Declarations(List.of(), List.of());

        private final Entry[][] entries;

        Declarations(List<String> oneway, List<String> future) {
            entries = new Entry[][] {parse(oneway), parse(future)};
        }

        boolean isEmpty() {
            return entries[ONEWAY].length == 0 && entries[FUTURE].length == 0;
        }

        /** Whether a declaration of {@code kind} names remote method {@code m} of {@code implClass}. */
        boolean names(int kind, Class<?> implClass, Method m) {
            for (Entry e : entries[kind]) {
                if (e.matches(implClass, m)) {
                    return true;
                }
            }
            return false;
        }

        private static Entry[] parse(List<String> list) {
            Set<Entry> out = new LinkedHashSet<>();
            for (String s : list) {
                int hash = s.indexOf('#');
                if (hash > 0 && hash < s.length() - 1 && (s.indexOf('(', hash) < 0 || s.endsWith(")"))) {
                    out.add(new Entry(s)); // checked by the agent (remora.async); malformed ones are ignored here
                }
            }
            return out.toArray(new Entry[0]);
        }

        private static final class Entry {
            final String type;
            final String method;
            /** Null: any parameters. */
            final String[] params;

            Entry(String s) {
                int hash = s.indexOf('#');
                type = s.substring(0, hash).trim();
                int open = s.indexOf('(', hash);
                if (open < 0) {
                    method = s.substring(hash + 1).trim();
                    params = null;
                } else {
                    method = s.substring(hash + 1, open).trim();
                    String inside = s.substring(open + 1, s.length() - 1).trim();
                    String[] p = inside.isEmpty() ? new String[0] : inside.split(",");
                    for (int i = 0; i < p.length; i++) {
                        p[i] = p[i].trim();
                    }
                    params = p;
                }
            }

            boolean matches(Class<?> implClass, Method m) {
                if (!method.equals(m.getName())) {
                    return false;
                }
                if (params != null) {
                    Class<?>[] p = m.getParameterTypes();
                    if (p.length != params.length) {
                        return false;
                    }
                    for (int i = 0; i < p.length; i++) {
                        if (!p[i].getTypeName().equals(params[i])) {
                            return false;
                        }
                    }
                }
                return declares(implClass, m, new java.util.HashSet<>());
            }

            /** Whether {@code c}, a supertype of it, or an interface of any, is {@link #type} and has {@code m}. */
            private boolean declares(Class<?> c, Method m, Set<Class<?>> seen) {
                if (c == null || !seen.add(c)) {
                    return false;
                }
                if (c.getName().equals(type)) {
                    try {
                        c.getMethod(m.getName(), m.getParameterTypes());
                        return true;
                    } catch (NoSuchMethodException e) {
                        return false;
                    }
                }
                if (declares(c.getSuperclass(), m, seen)) {
                    return true;
                }
                for (Class<?> i : c.getInterfaces()) {
                    if (declares(i, m, seen)) {
                        return true;
                    }
                }
                return false;
            }

            @Override
            public boolean equals(Object o) {
                return o instanceof Entry && o.toString().equals(toString());
            }

            @Override
            public int hashCode() {
                return toString().hashCode();
            }

            @Override
            public String toString() {
                return type + "#" + method + (params == null ? "" : "(" + String.join(",", params) + ")");
            }
        }
    }
}
