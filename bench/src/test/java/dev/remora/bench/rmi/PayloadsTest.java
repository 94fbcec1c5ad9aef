package dev.remora.bench.rmi;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import org.junit.jupiter.api.Test;

class PayloadsTest {

    @Test
    void tree15IsBalancedWithFifteenNodesInOrder() {
        Tree t = Tree.balanced(4);
        assertEquals(15, t.size());
        assertEquals(4, t.depth());
        assertEquals(8, t.value);
        assertEquals(7, t.left.size());
        assertEquals(7, t.right.size());
        int[] inOrder = new int[15];
        fill(t, inOrder, new int[1]);
        for (int i = 0; i < 15; i++) {
            assertEquals(i + 1, inOrder[i]);
        }
        assertEquals(1, Tree.balanced(1).size());
        assertThrows(IllegalArgumentException.class, () -> Tree.balanced(0));
    }

    private static void fill(Tree t, int[] out, int[] pos) {
        if (t != null) {
            fill(t.left, out, pos);
            out[pos[0]++] = t.value;
            fill(t.right, out, pos);
        }
    }

    @Test
    void labelsRoundTripAndGroupsExpand() {
        for (String l : List.of("null", "4int", "4int2null", "32int", "tree15", "byte[50]", "int[200]", "float[20000]")) {
            assertEquals(l, ObjectSpec.parse(l).label());
        }
        assertEquals("tree15", ObjectSpec.parse("tree(15)").label());
        List<ObjectSpec> all = ObjectSpec.parseList("all", ObjectSpec.ALL_SIZES);
        assertEquals(5 + 3 * 6, all.size());
        List<ObjectSpec> quick = ObjectSpec.parseList("small,arrays,4int", new int[] {50, 5000});
        assertEquals(5 + 3 * 2, quick.size());
        assertEquals("float[5000]", quick.get(quick.size() - 1).label());
        assertThrows(IllegalArgumentException.class, () -> ObjectSpec.parse("float[0]"));
        assertThrows(IllegalArgumentException.class, () -> ObjectSpec.parse("float[x]"));
        assertThrows(IllegalArgumentException.class, () -> ObjectSpec.parseList(" , ", ObjectSpec.ALL_SIZES));
    }

    @Test
    void instancesAreDeterministicAndDeepEqualAfterSerialization() throws Exception {
        for (ObjectSpec spec : ObjectSpec.parseList("all", new int[] {50, 5000})) {
            Object a = spec.create();
            Object b = spec.create();
            assertTrue(Objects.deepEquals(a, b), spec.label());
            assertEquals(Digest.of(a), Digest.of(b), spec.label());
            Object copy = roundTrip(a);
            assertTrue(Objects.deepEquals(a, copy), spec.label());
            assertEquals(Digest.of(a), Digest.of(copy), spec.label());
        }
        assertNull(ObjectSpec.parse("null").create());
        Int4Null2 x = (Int4Null2) ObjectSpec.parse("4int2null").create();
        assertNull(x.left);
        assertNull(x.right);
    }

    @Test
    void digestsTellPayloadsApart() {
        Set<Long> seen = new HashSet<>();
        for (ObjectSpec spec : ObjectSpec.parseList("all", ObjectSpec.ALL_SIZES)) {
            assertTrue(seen.add(Digest.of(spec.create())), "digest collision for " + spec.label());
        }
        // Same bits in another type, one changed element, one changed tree node: all differ.
        assertNotEquals(Digest.of(new int[] {1, 2}), Digest.of(new float[] {Float.intBitsToFloat(1),
                Float.intBitsToFloat(2)}));
        float[] f = (float[]) ObjectSpec.parse("float[50]").create();
        long before = Digest.of(f);
        f[49] += 1;
        assertNotEquals(before, Digest.of(f));
        Tree t = Tree.balanced(4);
        long tb = Digest.of(t);
        t.left.left.left.value = -1;
        assertNotEquals(tb, Digest.of(t));
        Int32 i = Int32.sample();
        long ib = Digest.of(i);
        i.i31++;
        assertNotEquals(ib, Digest.of(i));
        assertNotEquals(Int32.sample(), i);
        assertThrows(IllegalArgumentException.class, () -> Digest.of(new Object()));
        assertEquals("00000000000000ff", Digest.hex(255));
    }

    @Test
    void resultRowsRoundTrip() {
        ResultRow r = new ResultRow("agent-off", 2, "echo_obj", "float[]", 5000, 3000, 99.125, 110.5, 300.25, 10000.5,
                41.25, 97.5);
        assertEquals(r, ResultRow.parse(r.toCsv()));
        assertEquals("float[5000]", r.objectLabel());
        assertEquals(12, ResultRow.HEADER.split(",").length);
        assertEquals(12, r.toCsv().split(",", -1).length);
        ResultRow noCpu = new ResultRow("v", 1, "ping", "-", 0, 10, 1, 2, 3, 4, Double.NaN);
        assertTrue(Double.isNaN(ResultRow.parse(noCpu.toCsv()).cpuUs()));
        assertTrue(Double.isNaN(ResultRow.parse(noCpu.toCsv()).steadyUs()));
        // rows of an older client (11 fields, no steady_us) still parse
        assertEquals(5.5, ResultRow.parse("v,1,ping,-,0,10,1.0,2.0,3.0,4.0,5.5").cpuUs(), 1e-9);
        // rows of an older client (10 fields, no cpu_us) still parse
        assertTrue(Double.isNaN(ResultRow.parse("v,1,ping,-,0,10,1.0,2.0,3.0,4.0").cpuUs()));
        assertThrows(IllegalArgumentException.class, () -> ResultRow.parse("a,b,c"));
        assertThrows(IllegalArgumentException.class, () -> ResultRow.parse("v,1,ping,-,0,10,1,2,3,4,5,6,7"));
    }

    private static Object roundTrip(Object o) throws Exception {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        try (ObjectOutputStream out = new ObjectOutputStream(bytes)) {
            out.writeObject(o);
        }
        try (ObjectInputStream in = new ObjectInputStream(new ByteArrayInputStream(bytes.toByteArray()))) {
            return in.readObject();
        }
    }

    @Test
    void arraysHaveTheRequestedLengths() {
        assertEquals(5000, ((float[]) ObjectSpec.parse("float[5000]").create()).length);
        assertEquals(50, ((byte[]) ObjectSpec.parse("byte[50]").create()).length);
        assertArrayEquals((int[]) ObjectSpec.parse("int[200]").create(), (int[]) ObjectSpec.parse("int[200]").create());
    }
}
