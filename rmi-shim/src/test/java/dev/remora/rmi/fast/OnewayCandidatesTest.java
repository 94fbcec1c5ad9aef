package dev.remora.rmi.fast;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.rmi.RouterOptions;
import java.lang.reflect.Method;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * remora.stats' one-way candidates ({@code RemoraRouter.onewayCandidates}): the void methods, declaring no checked
 * exception but RemoteException, that callers called synchronously on Remora's path, most waited first, named as
 * remora.async takes them. Each test uses methods of its own: the counts are per method, for the whole JVM.
 */
class OnewayCandidatesTest {
    /** A remote interface whose methods only this test calls. */
    public interface Board extends Remote {
        void post(int x) throws RemoteException;

        void postSlowly(int x) throws RemoteException;

        void postRarely(int x) throws RemoteException;

        void postUncounted(int x) throws RemoteException;

        void postChecked(int x) throws RemoteException, Full;

        int read() throws RemoteException;

        void postDeclared(int x) throws RemoteException;
    }

    /** A checked exception a caller must see. */
    public static final class Full extends Exception {
        private static final long serialVersionUID = 1L;
    }

    static final class BoardImpl implements Board {
        volatile int last;

        @Override
        public void post(int x) {
            last = x;
        }

        @Override
        public void postSlowly(int x) {
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            last = x;
        }

        @Override
        public void postRarely(int x) {
            last = x;
        }

        @Override
        public void postUncounted(int x) {
            last = x;
        }

        @Override
        public void postChecked(int x) {
            last = x;
        }

        @Override
        public int read() {
            return last;
        }

        @Override
        public void postDeclared(int x) {
            last = x;
        }
    }

    private static final String B = Board.class.getName();

    static Method m(String name) {
        for (Method m : Board.class.getMethods()) {
            if (m.getName().equals(name)) {
                return m;
            }
        }
        throw new AssertionError(name);
    }

    private static RouterOptions server() {
        return Rig.options(RouterOptions.Serializer.FAST).asyncMethods(List.of(B + "#postDeclared"), List.of());
    }

    private static void calls(Rig rig, Object ref, String method, int n) throws Throwable {
        for (int i = 0; i < n; i++) {
            assertNull(rig.call(ref, m(method), i)[1]);
        }
    }

    @Test
    void voidMethodsCalledSynchronouslyAreNamedMostWaitedFirst() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST).adviseOneway(true), server())) {
            Object ref = rig.export(new BoardImpl());
            calls(rig, ref, "post", 300);
            calls(rig, ref, "postSlowly", 100); // at least 100 ms of waiting: more than post's 300 quick calls
            calls(rig, ref, "postRarely", 99); // too few to be named
            calls(rig, ref, "postChecked", 200); // its caller must see Full
            calls(rig, ref, "postDeclared", 200); // one-way on the server: only the first call waits
            for (int i = 0; i < 200; i++) {
                assertEquals(199, rig.result(ref, m("read")));
            }
            List<String> lines = rig.client.onewayCandidates(5);
            assertEquals(2, lines.size(), lines.toString());
            assertTrue(lines.get(0).startsWith(B + "#postSlowly(int): 100 calls, "), lines.toString());
            assertTrue(lines.get(1).startsWith(B + "#post(int): 300 calls, "), lines.toString());
            assertEquals(1, rig.client.onewayCandidates(1).size());
        }
    }

    @Test
    void withoutRemoraStatsNothingIsCounted() throws Throwable {
        try (Rig rig = new Rig(Rig.options(RouterOptions.Serializer.FAST), server())) {
            Object ref = rig.export(new BoardImpl());
            calls(rig, ref, "postUncounted", 150);
            for (String line : rig.client.onewayCandidates(10)) {
                assertTrue(!line.contains("#postUncounted"), line);
            }
        }
    }
}
