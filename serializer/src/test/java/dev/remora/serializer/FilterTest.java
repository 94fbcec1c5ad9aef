package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.ByteArrayInputStream;
import java.io.File;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** ObjectInputFilter verdicts: the same as the JDK's on the same inputs. */
class FilterTest {

    static final class Bad implements Serializable {
        int x = 1;
    }

    static final class Box implements Serializable {
        Object content;

        Box(Object c) {
            content = c;
        }
    }

    static final class Chain implements Serializable {
        Chain next;

        static Chain of(int n) {
            Chain c = new Chain();
            if (n > 1) {
                c.next = of(n - 1);
            }
            return c;
        }
    }

    /** "accepted" or the failure's class and message. */
    static String jdkVerdict(Object o, String pattern) {
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(RoundTrip.jdkBytes(o)))) {
            in.setObjectInputFilter(ObjectInputFilter.Config.createFilter(pattern));
            in.readObject();
            return "accepted";
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    static String remoraVerdict(Object o, String pattern) {
        try {
            RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
            out.beginCall();
            out.writeObject(o);
            out.finishCall();
            RemoraObjectInput in = new RemoraObjectInput(new ReadTypeTable(), SerializerOptions.DEFAULTS);
            in.setStreamFilter(ObjectInputFilter.Config.createFilter(pattern));
            in.beginCall(out.array(), out.offset(), out.length());
            in.readObject();
            return "accepted";
        } catch (Exception e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @Test
    void sameVerdictsAsTheJdk() {
        Object[] inputs = {new Box(new Bad()), new Box("fine"), new int[10], new int[11], new Box(new long[11]),
            Chain.of(3), Chain.of(4), Chain.of(6), new Box(new Box[] {new Box(null)}), List.of(new Bad()),
            new ArrayList<>(List.of(1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12))};
        String[] patterns = {"!dev.remora.serializer.FilterTest$Bad", "maxarray=10", "maxdepth=4",
            "dev.remora.**;java.**;!*", "!java.util.*", "java.lang.Integer;!*", "maxarray=5;!dev.remora.serializer.*"};
        int rejected = 0;
        int accepted = 0;
        for (Object o : inputs) {
            for (String p : patterns) {
                String jdk = jdkVerdict(o, p);
                String ours = remoraVerdict(o, p);
                String what = o.getClass().getSimpleName() + " under " + p;
                assertEquals(jdk, ours, what);
                if (jdk.equals("accepted")) {
                    accepted++;
                } else {
                    rejected++;
                }
            }
        }
        assertTrue(rejected > 10 && accepted > 10, rejected + " rejected, " + accepted + " accepted");
    }

    @Test
    void cachedTypeIdsDoNotSkipThePerObjectCheck() throws Exception {
        List<Class<?>> seen = new ArrayList<>();
        RoundTrip rt = new RoundTrip();
        rt.in.setStreamFilter(info -> {
            if (info.serialClass() != null) {
                seen.add(info.serialClass());
            }
            return info.serialClass() == Bad.class && seen.size() > 2 ? ObjectInputFilter.Status.REJECTED
                    : ObjectInputFilter.Status.UNDECIDED;
        });
        rt.read(rt.write(new Bad()), 1);
        rt.read(rt.write(new Bad()), 1); // id cached now
        assertEquals(List.of(Bad.class, Bad.class), seen);
        byte[] third = rt.write(new Bad());
        InvalidClassException e = org.junit.jupiter.api.Assertions.assertThrows(InvalidClassException.class,
                () -> rt.read(third, 1));
        assertEquals("filter status: REJECTED", e.getMessage());
    }

    /** The JVM-wide filter (jdk.serialFilter) is the stream's effective filter: checked in a child JVM. */
    @Test
    void jdkSerialFilterPropertyApplies() throws Exception {
        String java = System.getProperty("java.home") + File.separator + "bin" + File.separator + "java";
        ProcessBuilder pb = new ProcessBuilder(java, "-Djdk.serialFilter=!dev.remora.serializer.FilterTest$Bad",
                "-cp", System.getProperty("java.class.path"), FilterTest.class.getName() + "$Child");
        pb.redirectErrorStream(true);
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes()).trim();
        assertTrue(p.waitFor(30, TimeUnit.SECONDS));
        assertEquals("jdk=InvalidClassException: filter status: REJECTED remora=InvalidClassException: filter status: "
                + "REJECTED fine=accepted", out);
    }

    /** Child JVM entry point. */
    public static final class Child {
        public static void main(String[] args) throws IOException {
            System.out.println("jdk=" + jdkNoFilter(new Box(new Bad())) + " remora=" + remoraNoFilter(new Box(new Bad()))
                    + " fine=" + remoraNoFilter(new Box("x")));
        }

        static String jdkNoFilter(Object o) {
            try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(RoundTrip.jdkBytes(o)))) {
                in.readObject();
                return "accepted";
            } catch (Exception e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }

        static String remoraNoFilter(Object o) {
            try {
                RoundTrip rt = new RoundTrip();
                rt.roundTrip(o);
                return "accepted";
            } catch (Exception e) {
                return e.getClass().getSimpleName() + ": " + e.getMessage();
            }
        }
    }
}
