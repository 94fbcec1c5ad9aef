package dev.remora.bench.jmh.serializer;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The objects of the serializer issue's benchmark list ("UKA-serialization" Table 2 plus arrays and a realistic graph). */
public final class BenchObjects {
    private BenchObjects() {
    }

    public static final class Int4Null2 implements Serializable {
        int a = 1, b = 2, c = 3, d = 4;
        Object e;
        Object f;
    }

    public static final class Int32 implements Serializable {
        int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15;
        int i16, i17, i18, i19, i20, i21, i22, i23, i24, i25, i26, i27, i28, i29, i30, i31;

        static Int32 sample() {
            Int32 o = new Int32();
            o.i0 = 1; o.i7 = 7; o.i15 = 15; o.i23 = 23; o.i31 = 31;
            return o;
        }
    }

    public static final class Tree implements Serializable {
        Tree left;
        Tree right;
        int value;

        /** A balanced binary tree of 2^depth - 1 nodes (depth 4: 15). */
        static Tree build(int depth) {
            Tree t = new Tree();
            t.value = depth;
            if (depth > 1) {
                t.left = build(depth - 1);
                t.right = build(depth - 1);
            }
            return t;
        }
    }

    public static final class Person implements Serializable {
        String name;
        int age;
        List<String> tags = new ArrayList<>();
        Map<String, Person> friends = new HashMap<>();
        Person boss;
        double[] scores;
    }

    /** Strings, lists, maps, nested objects, a shared boss and a cycle. */
    static Person graph() {
        Person boss = new Person();
        boss.name = "Ada Lovelace";
        boss.age = 36;
        boss.tags.add("boss");
        boss.scores = new double[] {1, 2, 3};
        Person p = new Person();
        p.name = "Charles Babbage";
        p.age = 79;
        p.tags.add("engineer");
        p.tags.add("inventor");
        p.boss = boss;
        p.scores = new double[] {9.5, 8.25};
        for (int i = 0; i < 3; i++) {
            Person f = new Person();
            f.name = "friend-" + i;
            f.age = 20 + i;
            f.boss = boss;
            f.tags.add("f" + i);
            p.friends.put(f.name, f);
        }
        boss.friends.put(p.name, p);
        return p;
    }

    static Object make(String name) {
        switch (name) {
            case "null": return null;
            case "int4null2": return new Int4Null2();
            case "int32": return Int32.sample();
            case "tree15": return Tree.build(4);
            case "float50": return new float[50];
            case "float5000": return new float[5000];
            case "byte100000": return new byte[100_000];
            case "graph": return graph();
            default: throw new IllegalArgumentException("unknown object " + name);
        }
    }

    static final Class<?>[] CLASSES = {Int4Null2.class, Int32.class, Tree.class, Person.class, float[].class,
        byte[].class, double[].class, ArrayList.class, HashMap.class, Object.class};
}
