package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import dev.remora.rmi.RouterOptions.Serializer;
import dev.remora.serializer.TypeCacheMode;
import java.io.ObjectInputFilter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.rmi.Remote;
import java.rmi.ServerException;
import java.rmi.UnmarshalException;
import java.rmi.server.ObjID;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/**
 * Calls, results, exceptions and stubs marshalled by the fast serializer through two real routers over loopback
 * (see {@link Rig}), compared with what the JDK-serialization path gives.
 */
class FastMarshalTest {
    private static Method m(String name) {
        for (Method m : Svc.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new IllegalArgumentException(name);
    }

    private static Rig rig(Serializer client, Serializer server) throws Exception {
        return new Rig(Rig.options(client), Rig.options(server));
    }

    @Test
    void objectsRoundTripAndTypesAreDescribedOncePerConnection() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            Svc.Node tree = Svc.Node.tree(4, new int[1]);
            assertEquals(tree, rig.result(ref, m("echo"), tree));
            int first = rig.descriptors.get();
            assertTrue(first >= 2, "Node described on the call and on the reply: " + first);
            for (int i = 0; i < 5; i++) {
                assertEquals(tree, rig.result(ref, m("echo"), tree));
            }
            assertEquals(first, rig.descriptors.get(), "known types are sent by id");
            assertEquals("7/x/8/9.5/[1, null]", rig.result(ref, m("describe"), 7, "x", 8L, 9.5,
                    Arrays.asList(1, null)));
            assertEquals(42, rig.result(ref, m("add"), 40, 2), "primitive-only signatures keep the raw path");
            assertEquals(null, rig.result(ref, m("echo"), new Object[] {null}));
        }
    }

    /**
     * Connections make ahead the long arrays their messages keep carrying (dev.remora.serializer.Spares): the reading
     * threads prepare them before they wait, results stay new arrays, and closing the connections lets them go.
     */
    @Test
    void connectionsMakeRepeatedLongArraysAheadAndLetThemGoWhenClosed() throws Throwable {
        // connections of earlier tests may still be letting theirs go: their server readers end on their own threads
        long base = heldOnceSettled(h -> h == 0);
        Object[] results = new Object[6];
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            for (int call = 0; call < results.length; call++) {
                byte[] b = new byte[100_000];
                Arrays.fill(b, (byte) call);
                results[call] = rig.result(ref, m("any"), b);
                assertArrayEquals(b, (byte[]) results[call]);
                assertNotSame(b, results[call]);
            }
            // the client took its last one with the last reply; the server makes the next one once its reading
            // thread is back from sending that reply, which may be after the call returned here
            long held = heldOnceSettled(h -> h >= base + 100_000) - base;
            assertTrue(held >= 100_000, "arrays made ahead by the readers: " + held + " bytes");
        }
        for (int a = 0; a < results.length; a++) {
            for (int b = a + 1; b < results.length; b++) {
                assertNotSame(results[a], results[b]);
            }
        }
        assertEquals(base, heldOnceSettled(h -> h == base), "closed connections hold no arrays made ahead");
    }

    /** Spares.held() once it satisfies {@code wanted}, or after 10 s. */
    private static long heldOnceSettled(java.util.function.LongPredicate wanted) throws InterruptedException {
        long deadline = System.nanoTime() + 10_000_000_000L;
        while (true) {
            long held = dev.remora.serializer.Spares.held();
            if (wanted.test(held) || System.nanoTime() > deadline) {
                return held;
            }
            Thread.sleep(5);
        }
    }

    /**
     * Payloads of 16 KB and more are sent from the serializer's buffer as the frame's tail (no copy into the frame):
     * below the socket link's two-write size (absorbed), above it, and over a megabyte, from several threads at once
     * (a tail stays valid only while its channel's write lock is held).
     */
    @Test
    void largeArraysTravelAsFrameTailsBothWays() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            for (int n : new int[] {20_000, 100_000, 1_500_000}) {
                byte[] b = new byte[n];
                for (int i = 0; i < n; i++) {
                    b[i] = (byte) (i * 31 + n);
                }
                assertArrayEquals(b, (byte[]) rig.result(ref, m("any"), b), n + " bytes");
                int[] ints = new int[n / 4];
                Arrays.setAll(ints, i -> i * 7 - n);
                assertArrayEquals(ints, (int[]) rig.result(ref, m("any"), ints), n / 4 + " ints");
            }
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(4);
            try {
                List<java.util.concurrent.Future<?>> done = new java.util.ArrayList<>();
                for (int t = 0; t < 4; t++) {
                    int seed = t;
                    done.add(pool.submit(() -> {
                        for (int k = 0; k < 20; k++) {
                            byte[] b = new byte[30_000 + 20_000 * seed + k];
                            Arrays.fill(b, (byte) (seed * 40 + k));
                            try {
                                assertArrayEquals(b, (byte[]) rig.result(ref, m("any"), b));
                            } catch (Throwable e) {
                                throw new AssertionError("thread " + seed + " call " + k, e);
                            }
                        }
                        return null;
                    }));
                }
                for (java.util.concurrent.Future<?> f : done) {
                    f.get(60, java.util.concurrent.TimeUnit.SECONDS);
                }
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void callModeDescribesTypesOnEveryCall() throws Throwable {
        try (Rig rig = new Rig(Rig.options(Serializer.FAST).typeCache(TypeCacheMode.CALL),
                Rig.options(Serializer.FAST).typeCache(TypeCacheMode.CALL))) {
            Object ref = rig.export(new Svc.Impl());
            Svc.Node tree = Svc.Node.tree(3, new int[1]);
            rig.result(ref, m("echo"), tree);
            int first = rig.descriptors.get();
            rig.result(ref, m("echo"), tree);
            assertEquals(2 * first, rig.descriptors.get());
        }
    }

    @Test
    void sharedObjectsStayShared() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            Svc.Point p = new Svc.Point(1, 2);
            List<Object> in = new ArrayList<>(List.of(p, p, "s"));
            @SuppressWarnings("unchecked")
            List<Object> out = (List<Object>) rig.result(ref, m("any"), in);
            assertEquals(in, out);
            assertNotSame(in.get(0), out.get(0));
            assertSame(out.get(0), out.get(1), "handles within one call");
        }
    }

    @Test
    void exceptionsAsJrmpHasThem() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            IllegalStateException e = assertThrows(IllegalStateException.class,
                    () -> rig.result(ref, m("fail"), "broken"));
            assertEquals("broken", e.getMessage());
            assertTrue(Arrays.stream(e.getStackTrace()).anyMatch(s -> s.getMethodName().equals("fail")),
                    "the server's stack trace comes first");
            assertTrue(Arrays.stream(e.getStackTrace()).anyMatch(s -> s.getClassName().equals(getClass().getName())),
                    "then the client's");
            ServerException se = assertThrows(ServerException.class, () -> rig.result(ref, m("remoteFail")));
            assertEquals("remote trouble", se.getCause().getMessage());
            // the connection is still in step after exceptions
            assertEquals(new Svc.Point(3, 4), rig.result(ref, m("any"), new Svc.Point(3, 4)));
        }
    }

    @Test
    void notSerializableArgumentFailsThatCallOnly() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Object ref = rig.export(new Svc.Impl());
            Object bad = List.of(new Svc.Point(5, 6), new Object());
            assertThrows(java.rmi.MarshalException.class, () -> rig.result(ref, m("any"), bad));
            // the rolled-back Point descriptor is sent again with the next call
            assertEquals(new Svc.Point(5, 6), rig.result(ref, m("any"), new Svc.Point(5, 6)));
        }
    }

    @Test
    void exportedObjectsTravelAsStubsAndRegisterWithTheDgc() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            Svc.Impl impl = new Svc.Impl();
            Object ref = rig.export(impl);
            Object stub = rig.result(ref, m("self"));
            assertTrue(Proxy.isProxyClass(stub.getClass()) && stub instanceof Svc, "a stub, not the impl: " + stub);
            ObjID id = objId(Rig.refOf(stub));
            assertTrue(dgcClientHolds(id), "LiveRef.read registered the stub's reference with the DGC");
            assertEquals(42, ((Svc) stub).add(40, 2), "the stub works (by JRMP: no agent here)");
            // an exported object passed as an argument: replaced by its stub, the server calls back through it
            Svc.Impl callback = new Svc.Impl();
            rig.export(callback);
            assertEquals("other says 42", rig.result(ref, m("askBack"), callback));
        }
    }

    @Test
    void mismatchedSerializersWorkBothWays() throws Throwable {
        for (Serializer[] pair : new Serializer[][] {{Serializer.FAST, Serializer.JDK},
                {Serializer.JDK, Serializer.FAST}, {Serializer.JDK, Serializer.JDK}}) {
            try (Rig rig = rig(pair[0], pair[1])) {
                Object ref = rig.export(new Svc.Impl());
                Svc.Node tree = Svc.Node.tree(3, new int[1]);
                assertEquals(tree, rig.result(ref, m("echo"), tree), Arrays.toString(pair));
                assertEquals(tree, rig.result(ref, m("echo"), tree), Arrays.toString(pair));
                assertThrows(IllegalStateException.class, () -> rig.result(ref, m("fail"), "x"));
                int expected = (pair[0] == Serializer.FAST ? 1 : 0) + (pair[1] == Serializer.FAST ? 1 : 0);
                assertTrue(expected == 0 ? rig.descriptors.get() == 0 : rig.descriptors.get() >= expected,
                        Arrays.toString(pair) + " " + rig.descriptors.get());
            }
        }
    }

    @Test
    void theExportedObjectsFilterApplies() throws Throwable {
        try (Rig rig = rig(Serializer.FAST, Serializer.FAST)) {
            ObjectInputFilter noPoints = ObjectInputFilter.Config.createFilter("!" + Svc.Point.class.getName());
            Object ref = rig.export(new Svc.Impl(), noPoints);
            ServerException e = assertThrows(ServerException.class,
                    () -> rig.result(ref, m("any"), new Svc.Point(1, 1)), "as JRMP: UnmarshalException, wrapped");
            assertInstanceOf(UnmarshalException.class, e.getCause());
            assertInstanceOf(java.io.InvalidClassException.class, rootCause(e), e.toString());
            assertEquals("fine", rig.result(ref, m("any"), "fine"));
        }
    }

    @Test
    void concurrentCallsKeepTheTypeTablesInStep() throws Throwable {
        for (RouterOptions.Dispatch d : RouterOptions.Dispatch.values()) {
            try (Rig rig = new Rig(Rig.options(Serializer.FAST), Rig.options(Serializer.FAST).dispatch(d))) {
                Object ref = rig.export(new Svc.Impl());
                ExecutorService pool = Executors.newFixedThreadPool(4);
                try {
                    List<Future<?>> fs = new ArrayList<>();
                    for (int t = 0; t < 4; t++) {
                        int seed = t;
                        fs.add(pool.submit(() -> {
                            for (int i = 0; i < 150; i++) {
                                // every thread brings new types in a different order
                                Object v = values(seed + i);
                                Object back;
                                try {
                                    back = rig.result(ref, m("any"), v);
                                } catch (Throwable e) {
                                    throw new AssertionError(e);
                                }
                                if (!deepEquals(v, back)) {
                                    throw new AssertionError(v + " came back as " + back);
                                }
                            }
                            return null;
                        }));
                    }
                    for (Future<?> f : fs) {
                        f.get();
                    }
                } finally {
                    pool.shutdownNow();
                }
            }
        }
    }

    private static Object values(int k) {
        switch (k % 7) {
            case 0: return new Svc.Point(k, -k);
            case 1: return Svc.Node.tree(2, new int[] {k});
            case 2: return new int[] {k, k + 1};
            case 3: return Map.of("k", k);
            case 4: return new ArrayList<>(List.of(k, "v" + k));
            case 5: return Long.valueOf(k);
            default: return new Svc.Point[] {new Svc.Point(k, k)};
        }
    }

    private static boolean deepEquals(Object a, Object b) {
        return Arrays.deepEquals(new Object[] {a}, new Object[] {b});
    }

    private static Throwable rootCause(Throwable t) {
        while (t.getCause() != null) {
            t = t.getCause();
        }
        return t;
    }

    private static ObjID objId(Object unicastRef) throws Throwable {
        return dev.remora.rmi.jdk.RmiInternals.objId(dev.remora.rmi.jdk.RmiInternals.liveRef(unicastRef));
    }

    /** Whether sun.rmi.transport.DGCClient has a reference to {@code id} registered for some endpoint. */
    private static boolean dgcClientHolds(ObjID id) throws Exception {
        Class<?> entry = Class.forName("sun.rmi.transport.DGCClient$EndpointEntry", false,
                Remote.class.getClassLoader());
        Field table = entry.getDeclaredField("endpointTable");
        table.setAccessible(true);
        Field refs = entry.getDeclaredField("refTable");
        refs.setAccessible(true);
        Map<?, ?> endpoints = (Map<?, ?>) table.get(null);
        synchronized (endpoints) {
            for (Object e : endpoints.values()) {
                synchronized (e) {
                    for (Object liveRef : ((Map<?, ?>) refs.get(e)).keySet()) {
                        Method getObjID = liveRef.getClass().getMethod("getObjID");
                        if (id.equals(getObjID.invoke(liveRef))) {
                            return true;
                        }
                    }
                }
            }
        }
        return false;
    }
}
