package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import java.io.Serializable;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.lang.reflect.UndeclaredThrowableException;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.rmi.ServerException;
import java.rmi.UnmarshalException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Asynchronous calls (remora.async, remora.future) over real Remora connections: the server declares, the client
 * learns from the first reply and then sends one-way calls and futures, with no client setting.
 */
class AsyncCallsTest {
    /** What a future call returns. */
    public interface Report {
        String name();

        int size();
    }

    static final class ReportImpl implements Report, Serializable {
        private static final long serialVersionUID = 1L;
        final String name;

        ReportImpl(String name) {
            this.name = name;
        }

        @Override
        public String name() {
            return name;
        }

        @Override
        public int size() {
            return name.length();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Report && ((Report) o).name().equals(name);
        }

        @Override
        public int hashCode() {
            return name.hashCode() * 31;
        }

        @Override
        public String toString() {
            return "Report[" + name + "]";
        }
    }

    /** An application exception: a method declaring it cannot be one-way. */
    public static final class Busy extends Exception {
        private static final long serialVersionUID = 1L;
    }

    public interface Journal extends Remote {
        void append(int thread, int seq, String note) throws RemoteException;

        /** The entries of {@code thread} so far, in the order they ran; synchronous. */
        int[] entries(int thread) throws RemoteException;

        void boom(String message) throws RemoteException;

        void hold() throws RemoteException;

        /** One-way; waits for a permit of {@code steps}. */
        void step() throws RemoteException;

        void slow(int millis) throws RemoteException;

        int slowDone() throws RemoteException;

        Report report(String name, int millis) throws RemoteException;

        Report failing(boolean remote) throws RemoteException;

        /** Synchronous: the name of the report passed. */
        String nameOf(Report r) throws RemoteException;

        Report nothing() throws RemoteException;

        int notVoid() throws RemoteException;

        void checked() throws RemoteException, Busy;

        String notAnInterface() throws RemoteException;

        Journal self() throws RemoteException;

        /** Waits until {@code n} calls are inside it at once (10 s at most), then returns {@code name}'s report. */
        Report meet(String name, int n) throws RemoteException;

        /** Waits for the gate, then returns {@code name}'s report. */
        Report gated(String name) throws RemoteException;
    }

    static final class JournalImpl implements Journal {
        final Map<Integer, List<Integer>> log = new ConcurrentHashMap<>();
        final CountDownLatch gate = new CountDownLatch(1);
        final AtomicInteger held = new AtomicInteger();
        final java.util.concurrent.Semaphore steps = new java.util.concurrent.Semaphore(0);
        final AtomicInteger stepped = new AtomicInteger();
        final AtomicInteger slowDone = new AtomicInteger();
        final List<String> wrongNotes = new CopyOnWriteArrayList<>();
        final AtomicInteger inside = new AtomicInteger();
        final AtomicInteger gatedIn = new AtomicInteger();

        @Override
        public void append(int thread, int seq, String note) {
            if (!note.equals("n" + seq)) {
                wrongNotes.add(note);
            }
            log.computeIfAbsent(thread, t -> new CopyOnWriteArrayList<>()).add(seq);
        }

        @Override
        public int[] entries(int thread) {
            List<Integer> l = log.getOrDefault(thread, List.of());
            int[] a = new int[l.size()];
            for (int i = 0; i < a.length; i++) {
                a[i] = l.get(i);
            }
            return a;
        }

        @Override
        public void boom(String message) {
            throw new IllegalStateException(message);
        }

        @Override
        public void hold() {
            held.incrementAndGet();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public void step() {
            try {
                steps.tryAcquire(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            stepped.incrementAndGet();
        }

        @Override
        public void slow(int millis) {
            nap(millis);
            slowDone.incrementAndGet();
        }

        @Override
        public int slowDone() {
            return slowDone.get();
        }

        @Override
        public Report report(String name, int millis) {
            nap(millis);
            return new ReportImpl(name);
        }

        @Override
        public String nameOf(Report r) {
            return r.name();
        }

        @Override
        public Report failing(boolean remote) throws RemoteException {
            if (remote) {
                throw new RemoteException("remote trouble");
            }
            throw new IllegalArgumentException("bad report");
        }

        @Override
        public Report nothing() {
            return null;
        }

        @Override
        public int notVoid() {
            return 7;
        }

        @Override
        public void checked() {
        }

        @Override
        public String notAnInterface() {
            return "text";
        }

        @Override
        public Journal self() {
            return this;
        }

        @Override
        public Report meet(String name, int n) {
            inside.incrementAndGet();
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (inside.get() < n) {
                if (System.nanoTime() > deadline) {
                    throw new IllegalStateException(name + " never met " + n + " calls at once");
                }
                nap(1);
            }
            return new ReportImpl(name);
        }

        @Override
        public Report gated(String name) {
            gatedIn.incrementAndGet();
            try {
                gate.await(30, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return new ReportImpl(name);
        }
    }

    private static final String J = Journal.class.getName();

    static RouterOptions server(RouterOptions.Dispatch d) {
        return Rig.options(RouterOptions.Serializer.FAST).dispatch(d).asyncMethods(
                List.of(J + "#append", J + "#boom", J + "#hold", J + "#step", J + "#slow(int)", J + "#notVoid",
                        JournalImpl.class.getName() + "#checked"),
                List.of(J + "#report(java.lang.String,int)", J + "#failing", J + "#nothing", J + "#notAnInterface",
                        J + "#self", J + "#slow", J + "#meet", J + "#gated"));
    }

    static Method m(String name) {
        for (Method m : Journal.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    static void nap(int millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Test
    void refusedDeclarationsSayWhyAndStaySynchronous() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            String notes = String.join("\n", rig.notes());
            assertTrue(notes.contains("remora.async: " + J + "#notVoid() stays synchronous: it returns int"), notes);
            assertTrue(notes.contains("remora.async: " + J + "#checked() stays synchronous: it declares "
                    + Busy.class.getName() + ", which its caller must see"), notes);
            assertTrue(notes.contains("remora.future: " + J + "#notAnInterface() stays synchronous: it returns"
                    + " java.lang.String, not an interface"), notes);
            assertTrue(notes.contains("remora.future: " + J + "#self() stays synchronous: it returns the remote"
                    + " interface " + J + ", whose stub a future cannot stand for"), notes);
            assertTrue(notes.contains("remora.future: " + J + "#slow(int) stays synchronous: it returns void"), notes);
            assertEquals(5, rig.notes().stream().filter(n -> n.contains("stays synchronous")).count(), notes);
            rig.result(ref, m("entries"), 0); // learns the declarations
            assertEquals(7, rig.result(ref, m("notVoid")));
            assertNull(rig.result(ref, m("checked")));
            assertEquals("text", rig.result(ref, m("notAnInterface")));
            assertTrue(Proxy.getInvocationHandler(rig.result(ref, m("self")))
                    instanceof java.rmi.server.RemoteObjectInvocationHandler, "a stub, not a future");
            assertEquals(0, rig.onewaySent.get());
            assertEquals(0, rig.futuresMade.get());
        }
    }

    @Test
    void aOnewayCallReturnsAtOnceAndALaterCallRunsAfterIt() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            rig.result(ref, m("slow"), 0); // the first call is synchronous: its reply tells the client
            assertEquals(0, rig.onewaySent.get());
            long t0 = System.nanoTime();
            Object[] r = rig.call(ref, m("slow"), 1500); // margin for a loaded machine: the call takes 1.5 s
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertNotNull(r);
            assertNull(r[0]);
            assertNull(r[1]);
            assertTrue(took < 1000, "a one-way call waited " + took + " ms");
            assertEquals(1, rig.onewaySent.get());
            assertEquals(2, rig.result(ref, m("slowDone")), "the synchronous call ran after the one-way one");
        }
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Dispatch.class)
    void onewayCallsFromManyThreadsRunInTheirThreadsOrder(RouterOptions.Dispatch dispatch) throws Throwable {
        JournalImpl impl = new JournalImpl();
        int threads = 8;
        int calls = 400;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).asyncMaxPending(64), server(dispatch))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), -1);
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            try {
                List<Future<String>> done = new ArrayList<>();
                for (int t = 0; t < threads; t++) {
                    int me = t;
                    done.add(pool.submit(() -> {
                        try {
                            return appendAll(rig, ref, me, calls);
                        } catch (Throwable e) {
                            return e.toString();
                        }
                    }));
                }
                for (Future<String> f : done) {
                    assertNull(f.get(60, TimeUnit.SECONDS));
                }
            } finally {
                pool.shutdownNow();
            }
            assertEquals(threads * calls, rig.onewaySent.get());
            assertTrue(impl.wrongNotes.isEmpty(), impl.wrongNotes.toString());
        }
    }

    /** {@code calls} one-way appends, then a synchronous look at what ran: null when all ran in order. */
    private static String appendAll(Rig rig, Object ref, int me, int calls) throws Throwable {
        for (int i = 0; i < calls; i++) {
            Object[] r = rig.call(ref, m("append"), me, i, "n" + i);
            if (r == null || r[1] != null) {
                return "call " + i + ": " + (r == null ? "went to JRMP" : r[1]);
            }
        }
        int[] seen = (int[]) rig.result(ref, m("entries"), me);
        if (seen.length != calls) {
            return "thread " + me + " saw " + seen.length + " of its " + calls + " calls run";
        }
        for (int i = 0; i < calls; i++) {
            if (seen[i] != i) {
                return "thread " + me + ": entry " + i + " is call " + seen[i];
            }
        }
        return null;
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void onewayCallsFasterThanTheWireLeaveTogetherInOrder(boolean batch) throws Throwable {
        JournalImpl impl = new JournalImpl();
        int calls = 3000;
        // every call after the first counts as following closely, however slowly this uncompiled loop runs
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).asyncBatch(batch)
                .onewayRunGap(TimeUnit.SECONDS.toNanos(30)), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            assertNull(appendAll(rig, ref, 0, calls)); // the synchronous call at the end takes the last run along
            assertTrue(impl.wrongNotes.isEmpty(), impl.wrongNotes.toString());
            if (batch) {
                assertEquals(calls - 1, rig.onewayBatched.get(), "every call but the first (a lone one) went in a run");
                assertTrue(rig.onewayBatches.get() < calls / 2, rig.onewayBatches + " writes for " + calls + " calls");
            } else {
                assertEquals(0, rig.onewayBatches.get());
            }
        }
    }

    @Test
    void aLoneOnewayCallLeavesAtOnce() throws Throwable {
        JournalImpl impl = new JournalImpl();
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            assertNull(rig.call(ref, m("append"), 5, 0, "n0")[1]);
            Thread.sleep(5); // far more than the run gap (20 us)
            assertNull(rig.call(ref, m("append"), 5, 1, "n1")[1]);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (impl.entries(5).length < 2 && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertEquals(2, impl.entries(5).length, "lone one-way calls were never sent");
            Thread.sleep(50); // past the batcher's delay: a held-back run would have been counted by now
            assertEquals(0, rig.onewayBatched.get(), "a one-way call with none just before it was held back");
            assertEquals(0, rig.onewayBatches.get());
        }
    }

    @Test
    void aHeldBackOnewayCallLeavesWithinTheDelay() throws Throwable {
        JournalImpl impl = new JournalImpl();
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).onewayRunGap(TimeUnit.SECONDS.toNanos(30)),
                server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            assertNull(rig.call(ref, m("append"), 5, 0, "n0")[1]); // lone: leaves at once
            assertNull(rig.call(ref, m("append"), 5, 1, "n1")[1]); // follows it: held back
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while ((impl.entries(5).length < 2 || rig.onewayBatches.get() == 0) && System.nanoTime() < deadline) {
                Thread.sleep(1); // (the sender counts its write after the server may have run the call)
            }
            assertEquals(2, impl.entries(5).length, "a held-back one-way call was never sent");
            assertEquals(1, rig.onewayBatches.get(), "it went as a held-back run");
            assertEquals(1, rig.onewayBatched.get(), "the run held the second call only");
        }
    }

    @Test
    void aOnewayCallsExceptionIsReportedOnTheServerAndTheCallerGoesOn() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            rig.result(ref, m("entries"), 0);
            Object[] r = rig.call(ref, m("boom"), "kaboom");
            assertNull(r[1], "the caller does not see a one-way call's exception");
            assertEquals(0, ((int[]) rig.result(ref, m("entries"), 0)).length); // runs after boom
            assertEquals(1, rig.onewayFailures.size(), rig.onewayFailures.toString());
            assertEquals(J + "#boom(java.lang.String): java.lang.IllegalStateException: kaboom",
                    rig.onewayFailures.get(0));
        }
    }

    @Test
    void theCallerWaitsAtMaxPending() throws Throwable {
        JournalImpl impl = new JournalImpl();
        int max = 4;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).asyncMaxPending(max),
                server(RouterOptions.Dispatch.POOL))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            for (int i = 0; i < max; i++) {
                assertNull(rig.call(ref, m("hold"))[1]); // the first blocks on the server, the others queue
            }
            CountDownLatch sent = new CountDownLatch(1);
            Thread next = new Thread(() -> {
                try {
                    rig.call(ref, m("hold"));
                } catch (Throwable e) {
                    throw new AssertionError(e);
                }
                sent.countDown();
            });
            next.start();
            assertFalse(sent.await(500, TimeUnit.MILLISECONDS), "a call beyond maxPending did not wait");
            assertEquals(1, impl.held.get(), "the server runs them one after another");
            impl.gate.countDown();
            assertTrue(sent.await(10, TimeUnit.SECONDS), "the waiting call went on once the server caught up");
            next.join(10_000);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (impl.held.get() < max + 1 && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertEquals(max + 1, impl.held.get());
        }
    }

    /**
     * Once at maxPending, a caller goes on only when at most half are unconfirmed: a server that confirms each call
     * as it runs (here every maxPending / 4 = 1) must not pace the caller one call per confirmation (on one CPU that
     * lockstep sent one call per write).
     */
    @Test
    void aCallerAtMaxPendingGoesOnOnceHalfAreConfirmed() throws Throwable {
        JournalImpl impl = new JournalImpl();
        int max = 4;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).asyncMaxPending(max),
                server(RouterOptions.Dispatch.POOL).asyncMaxPending(max))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            for (int i = 0; i < max; i++) {
                assertNull(rig.call(ref, m("step"))[1]);
            }
            CountDownLatch sent = new CountDownLatch(1);
            Thread next = new Thread(() -> {
                try {
                    rig.call(ref, m("step"));
                } catch (Throwable e) {
                    throw new AssertionError(e);
                }
                sent.countDown();
            });
            next.start();
            assertFalse(sent.await(300, TimeUnit.MILLISECONDS), "a call beyond maxPending did not wait");
            impl.steps.release(1);
            awaitStepped(impl, 1);
            assertFalse(sent.await(300, TimeUnit.MILLISECONDS), "the caller went on with 3 of 4 unconfirmed");
            impl.steps.release(1);
            assertTrue(sent.await(10, TimeUnit.SECONDS), "the caller did not go on with 2 of 4 unconfirmed");
            next.join(10_000);
            impl.steps.release(max);
            awaitStepped(impl, max + 1);
        }
    }

    private static void awaitStepped(JournalImpl impl, int n) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
        while (impl.stepped.get() < n && System.nanoTime() < deadline) {
            Thread.sleep(5);
        }
        assertEquals(n, impl.stepped.get());
    }

    @Test
    void onewayCallsLostWithTheirConnectionMakeTheNextCallThrow() throws Throwable {
        JournalImpl impl = new JournalImpl();
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).idleCheckMillis(0),
                server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            for (int i = 0; i < 5; i++) {
                assertNull(rig.call(ref, m("slow"), 300)[1]);
            }
            rig.dropConnections(); // the server is gone with calls unconfirmed
            Thread.sleep(50);
            UnmarshalException e = assertThrows(UnmarshalException.class, () -> rig.result(ref, m("entries"), 0));
            assertTrue(e.getCause().getMessage().contains("one-way call(s) to"), e.toString());
            assertTrue(e.getCause().getMessage().contains("were not confirmed"), e.toString());
            assertTrue(rig.unconfirmed.get() > 0 && rig.unconfirmed.get() <= 5, rig.unconfirmed + "");
            assertNotNull(rig.result(ref, m("entries"), 0), "the call after that one goes through a new connection");
        }
    }

    @ParameterizedTest
    @EnumSource(RouterOptions.Serializer.class)
    void aFutureReturnsAtOnceAndBehavesAsItsResult(RouterOptions.Serializer serializer) throws Throwable {
        try (Rig rig = new Rig(Rig.options(serializer), server(RouterOptions.Dispatch.AUTO).serializer(serializer))) {
            Object ref = rig.export(new JournalImpl());
            Report first = (Report) rig.result(ref, m("report"), "first", 0);
            assertFalse(Proxy.isProxyClass(first.getClass()), "the first call is synchronous");
            long t0 = System.nanoTime();
            Report r = (Report) rig.result(ref, m("report"), "second", 1500); // margin for a loaded machine
            long took = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - t0);
            assertTrue(took < 1000, "the future call waited " + took + " ms");
            assertTrue(Proxy.isProxyClass(r.getClass()));
            assertEquals("second", r.name());
            assertEquals(6, r.size());
            ReportImpl same = new ReportImpl("second");
            assertEquals(same.hashCode(), r.hashCode());
            assertTrue(r.equals(same));
            assertTrue(r.equals(r));
            assertFalse(r.equals(new ReportImpl("other")));
            assertEquals("Report[second]", r.toString());
            assertEquals(1, rig.futuresMade.get());
        }
    }

    @Test
    void aFuturesExceptionIsThrownAtFirstUse() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            rig.result(ref, m("entries"), 0);
            Report bad = (Report) rig.result(ref, m("failing"), false);
            IllegalArgumentException e = assertThrows(IllegalArgumentException.class, bad::name);
            assertEquals("bad report", e.getMessage());
            assertSame(e, assertThrows(IllegalArgumentException.class, bad::size), "every use throws it");
            Report remote = (Report) rig.result(ref, m("failing"), true);
            UndeclaredThrowableException u = assertThrows(UndeclaredThrowableException.class, remote::name);
            assertTrue(u.getCause() instanceof ServerException, u.getCause().toString());
            assertEquals("remote trouble", u.getCause().getCause().getMessage());
            Report none = (Report) rig.result(ref, m("nothing"));
            assertNotNull(none);
            assertThrows(NullPointerException.class, none::name);
        }
    }

    /** A future passed as an argument goes as its result; one whose call failed makes the call throw that. */
    @Test
    void aFuturePassedOnGoesAsItsResult() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            rig.result(ref, m("entries"), 0);
            Report r = (Report) rig.result(ref, m("report"), "passed", 20);
            assertTrue(java.lang.reflect.Proxy.isProxyClass(r.getClass()), "a future: " + r.getClass());
            assertEquals("passed", rig.result(ref, m("nameOf"), r));
            Report bad = (Report) rig.result(ref, m("failing"), false);
            Object[] outcome = rig.call(ref, m("nameOf"), bad);
            assertTrue(outcome[1] instanceof IllegalArgumentException, String.valueOf(outcome[1]));
            assertEquals("bad report", ((Throwable) outcome[1]).getMessage());
        }
    }

    @Test
    void aFutureUsedAfterTheServerDiedThrowsARemoteException() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(new JournalImpl());
            rig.result(ref, m("entries"), 0);
            Report r = (Report) rig.result(ref, m("report"), "late", 1000);
            rig.dropConnections();
            UndeclaredThrowableException u = assertThrows(UndeclaredThrowableException.class, r::name);
            assertTrue(u.getCause() instanceof RemoteException, u.getCause().toString());
        }
    }

    @ParameterizedTest
    @EnumSource(value = RouterOptions.Dispatch.class, names = {"AUTO", "POOL"})
    void onesThreadsFuturesRunAtOnceOnTheServer(RouterOptions.Dispatch dispatch) throws Throwable {
        JournalImpl impl = new JournalImpl();
        int n = 8;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server(dispatch))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            Report[] rs = new Report[n];
            for (int i = 0; i < n; i++) {
                rs[i] = (Report) rig.result(ref, m("meet"), "m" + i, n); // each waits until all 8 are inside
            }
            for (int i = 0; i < n; i++) {
                assertEquals("m" + i, rs[i].name(), "future " + i);
            }
            assertEquals(n, rig.futuresMade.get());
            assertEquals(n, impl.inside.get());
        }
    }

    @Test
    void futureCallsWaitAtMaxPendingUntilARepliedOne() throws Throwable {
        JournalImpl impl = new JournalImpl();
        int max = 4;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).asyncMaxPending(max),
                server(RouterOptions.Dispatch.AUTO))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            List<Report> rs = new CopyOnWriteArrayList<>();
            for (int i = 0; i < max; i++) {
                rs.add((Report) rig.result(ref, m("gated"), "g" + i)); // all run at once, blocked at the gate
            }
            CountDownLatch sent = new CountDownLatch(1);
            Thread next = new Thread(() -> {
                try {
                    rs.add((Report) rig.result(ref, m("gated"), "g" + max));
                } catch (Throwable e) {
                    throw new AssertionError(e);
                }
                sent.countDown();
            });
            next.start();
            assertFalse(sent.await(500, TimeUnit.MILLISECONDS), "a future call beyond maxPending did not wait");
            assertEquals(max, impl.gatedIn.get(), "the server runs the first " + max + " at once, not the next");
            impl.gate.countDown();
            assertTrue(sent.await(10, TimeUnit.SECONDS), "the waiting call went on once a reply came");
            next.join(10_000);
            for (int i = 0; i <= max; i++) {
                assertEquals("g" + i, rs.get(i).name(), "future " + i);
            }
            assertEquals(max + 1, impl.gatedIn.get());
        }
    }

    @ParameterizedTest
    @org.junit.jupiter.params.provider.ValueSource(booleans = {true, false})
    void futuresIssuedBackToBackLeaveTogetherAndTheirRepliesToo(boolean batch) throws Throwable {
        JournalImpl impl = new JournalImpl();
        int calls = 500;
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).futureBatch(batch),
                server(RouterOptions.Dispatch.AUTO).futureBatch(batch))) {
            Object ref = rig.export(impl);
            rig.result(ref, m("entries"), 0);
            Report[] rs = new Report[calls];
            for (int i = 0; i < calls; i++) {
                rs[i] = (Report) rig.result(ref, m("report"), "f" + i, 1);
            }
            for (int i = 0; i < calls; i++) {
                assertEquals("f" + i, rs[i].name(), "future " + i);
            }
            assertEquals(calls, rig.futuresMade.get());
            if (batch) {
                // (the first of a run, issued while no other future is out, leaves at once)
                assertTrue(rig.onewayBatched.get() >= calls * 9 / 10, rig.onewayBatched + " of " + calls
                        + " future calls went in runs");
                assertTrue(rig.onewayBatches.get() < calls / 2, rig.onewayBatches + " writes for " + calls + " calls");
                assertTrue(rig.replyBatched.get() > rig.replyBatches.get(),
                        rig.replyBatched + " replies held back in " + rig.replyBatches + " writes");
            } else {
                assertEquals(0, rig.onewayBatches.get());
                assertEquals(0, rig.replyBatches.get());
            }
        }
    }
}
