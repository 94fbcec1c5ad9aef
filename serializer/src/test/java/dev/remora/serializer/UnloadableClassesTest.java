package dev.remora.serializer;

import static dev.remora.serializer.LoaderScopeTest.isolated;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.serializer.LoaderScopeTest.Scoped;
import java.io.IOException;
import java.io.Serializable;
import java.lang.ref.WeakReference;
import java.net.URLClassLoader;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A connection outlives an application server's redeployment: its type tables must not keep the dropped deployment's
 * classes, and so its class loader, alive. The write table keeps such classes weakly ({@link WriteTypeTable}), the
 * read table its resolutions softly, as the JDK keeps its class descriptors ({@link ReadTypeTable}); the streams
 * keep nothing of a call once it is over.
 */
class UnloadableClassesTest {
    /** A class every isolated loader below defines again. */
    public static final class Item implements Serializable {
        private static final long serialVersionUID = 1L;
        public int n;
        public String s;
    }

    /** Reads {@code msg} with {@code l}'s classes; the object's fields, as "class@loader n s". */
    private static String read(Scoped in, byte[] msg, ClassLoader l) throws Exception {
        Object o = in.read(msg, l);
        Class<?> c = o.getClass();
        assertSame(l, c.getClassLoader());
        return c.getName() + "@" + l.getName() + " " + c.getField("n").getInt(o) + " " + c.getField("s").get(o);
    }

    /** An Item of {@code l}'s class. */
    private static Object item(ClassLoader l, int n) throws Exception {
        Class<?> c = Class.forName(Item.class.getName(), true, l);
        Object o = c.getConstructor().newInstance();
        c.getField("n").setInt(o, n);
        c.getField("s").set(o, "s" + n);
        return o;
    }

    /** A connection's message: written, sent (the writer lets go of it), its bytes. */
    private static byte[] send(RemoraObjectOutput out, Object o) throws IOException {
        byte[] m = RoundTrip.write(out, o);
        out.release();
        return m;
    }

    /** Collects until {@code ref} is cleared (class unloading needs a full collection); whether it was. */
    private static boolean collected(WeakReference<?> ref) throws InterruptedException {
        for (int i = 0; i < 20 && ref.get() != null; i++) {
            System.gc();
            Thread.sleep(20);
        }
        return ref.get() == null;
    }

    /** Writes and reads an Item of a writer's and a reader's loader of their own; the loaders, weakly. */
    private static WeakReference<?>[] oneGeneration(RemoraObjectOutput out, Scoped in, int g) throws Exception {
        URLClassLoader w = isolated("w" + g);
        URLClassLoader r = isolated("r" + g);
        assertEquals(Item.class.getName() + "@r" + g + " " + g + " s" + g, read(in, send(out, item(w, g)), r));
        return new WeakReference<?>[] {new WeakReference<>(w), new WeakReference<>(r)};
    }

    @Test
    void aConnectionKeepsNoClassOfADroppedLoader() throws Exception {
        WriteTypeTable wt = new WriteTypeTable();
        ReadTypeTable rt = new ReadTypeTable();
        RemoraObjectOutput out = new RemoraObjectOutput(wt, SerializerOptions.DEFAULTS);
        Scoped in = new Scoped(rt);
        WeakReference<?>[] first = oneGeneration(out, in, 1);
        assertEquals(1, wt.size());
        assertTrue(collected(first[0]), "the writer's loader is not kept by the write table");
        assertNotNull(first[1].get(), "the reader's resolution is kept, softly");
        rt.dropResolutions(); // what the collector does to soft references when memory runs short
        assertTrue(collected(first[1]), "the reader's loader is kept by nothing else");
        assertEquals(0, wt.held());

        // the next generation's class is described anew, with a new id; the old id's description stays known
        WeakReference<?>[] second = oneGeneration(out, in, 2);
        assertEquals(2, wt.size());
        assertEquals(2, rt.size());
        assertTrue(collected(second[0]));
    }

    @Test
    void aResolutionTheCollectorTookIsMadeAgain() throws Exception {
        RemoraObjectOutput out = new RemoraObjectOutput(new WriteTypeTable(), SerializerOptions.DEFAULTS);
        ReadTypeTable rt = new ReadTypeTable();
        Scoped in = new Scoped(rt);
        URLClassLoader w = isolated("w");
        URLClassLoader r = isolated("r");
        String expected = Item.class.getName() + "@r 5 s5";
        assertEquals(expected, read(in, send(out, item(w, 5)), r));
        assertEquals(expected, read(in, send(out, item(w, 5)), r));
        assertEquals(1, in.resolved, "resolved once while kept");
        rt.dropResolutions();
        assertEquals(expected, read(in, send(out, item(w, 5)), r), "read by id alone, resolved again");
        assertEquals(2, in.resolved);
        // the JDK's classes are kept strongly, as before: resolved once
        int before = in.resolved;
        for (int i = 0; i < 3; i++) {
            byte[] m = send(out, new ArrayList<>(List.of(i)));
            in.resolveWith(r, null);
            in.beginCall(m, 0, m.length);
            assertEquals(List.of(i), in.readObject());
            in.endCall();
            rt.dropResolutions();
        }
        assertEquals(before + 2, in.resolved, "ArrayList and Integer");
    }

    @Test
    void anAbandonedMessageForgetsItsWeaklyKeptIds() throws Exception {
        WriteTypeTable wt = new WriteTypeTable();
        RemoraObjectOutput out = new RemoraObjectOutput(wt, SerializerOptions.DEFAULTS);
        URLClassLoader w = isolated("w");
        out.beginCall();
        out.writeObject(item(w, 1));
        out.abortCall(); // never sent: the peer never saw the description
        assertEquals(0, wt.size());
        assertEquals(0, wt.held());
        Scoped in = new Scoped(new ReadTypeTable());
        URLClassLoader r = isolated("r");
        assertEquals(Item.class.getName() + "@r 2 s2", read(in, send(out, item(w, 2)), r));
        assertEquals(1, wt.size());
    }
}
