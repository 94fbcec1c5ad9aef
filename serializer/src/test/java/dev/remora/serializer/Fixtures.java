package dev.remora.serializer;

import java.io.Serializable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/** Objects of the benchmark list, shared by tests. */
final class Fixtures {
    private Fixtures() {
    }

    static final class Int32 implements Serializable {
        int i0, i1, i2, i3, i4, i5, i6, i7, i8, i9, i10, i11, i12, i13, i14, i15;
        int i16, i17, i18, i19, i20, i21, i22, i23, i24, i25, i26, i27, i28, i29, i30, i31;

        static Int32 sample() {
            Int32 o = new Int32();
            o.i0 = 1; o.i5 = -5; o.i13 = 0x12345678; o.i31 = Integer.MIN_VALUE; o.i20 = 20;
            return o;
        }

        @Override
        public boolean equals(Object x) {
            if (!(x instanceof Int32)) {
                return false;
            }
            Int32 o = (Int32) x;
            return o.i0 == i0 && o.i5 == i5 && o.i13 == i13 && o.i31 == i31 && o.i20 == i20 && o.i1 == i1;
        }

        @Override
        public int hashCode() {
            return i0;
        }
    }

    static final class Int4Null2 implements Serializable {
        int a = 1, b = 2, c = 3, d = 4;
        Object e;
        Object f;
    }

    static final class Tree implements Serializable {
        Tree left;
        Tree right;
        int value;

        static Tree build(int depth) {
            Tree t = new Tree();
            t.value = depth;
            if (depth > 1) {
                t.left = build(depth - 1);
                t.right = build(depth - 1);
            }
            return t;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Tree && ((Tree) o).value == value && Objects.equals(((Tree) o).left, left)
                    && Objects.equals(((Tree) o).right, right);
        }

        @Override
        public int hashCode() {
            return value;
        }
    }

    static final class Person implements Serializable {
        String name;
        int age;
        List<String> tags = new ArrayList<>();
        Map<String, Person> friends = new HashMap<>();
        Person boss;
        double[] scores;

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Person)) {
                return false;
            }
            Person p = (Person) o;
            return Objects.equals(p.name, name) && p.age == age && Objects.equals(p.tags, tags)
                    && Objects.equals(p.friends.keySet(), friends.keySet()) && java.util.Arrays.equals(p.scores, scores);
        }

        @Override
        public int hashCode() {
            return age;
        }
    }

    /** A realistic graph: strings, lists, maps, nested objects, a shared boss, a cycle. */
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
        boss.friends.put(p.name, p); // cycle
        return p;
    }
}
