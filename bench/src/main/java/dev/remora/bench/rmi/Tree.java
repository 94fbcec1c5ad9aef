package dev.remora.bench.rmi;

import java.io.Serializable;
import java.util.Objects;

/** Seed 000's "tree(15)": a balanced binary tree node; {@link #balanced(int)} builds one with 2^depth - 1 nodes. */
public final class Tree implements Serializable {

    private static final long serialVersionUID = 1L;

    public int value;
    public Tree left;
    public Tree right;

    public Tree(int value, Tree left, Tree right) {
        this.value = value;
        this.left = left;
        this.right = right;
    }

    /** A balanced tree of the given depth (depth 4: 15 nodes) whose values number the nodes in order 1..n. */
    public static Tree balanced(int depth) {
        if (depth < 1 || depth > 20) {
            throw new IllegalArgumentException("tree depth must be 1..20, got " + depth);
        }
        return build(1, (1 << depth) - 1);
    }

    private static Tree build(int lo, int hi) {
        if (lo > hi) {
            return null;
        }
        int mid = (lo + hi) >>> 1;
        return new Tree(mid, build(lo, mid - 1), build(mid + 1, hi));
    }

    /** Number of nodes reachable from this one. */
    public int size() {
        return 1 + (left == null ? 0 : left.size()) + (right == null ? 0 : right.size());
    }

    /** Number of levels below and including this node. */
    public int depth() {
        return 1 + Math.max(left == null ? 0 : left.depth(), right == null ? 0 : right.depth());
    }

    @Override
    public boolean equals(Object other) {
        if (!(other instanceof Tree)) {
            return false;
        }
        Tree x = (Tree) other;
        return value == x.value && Objects.equals(left, x.left) && Objects.equals(right, x.right);
    }

    @Override
    public int hashCode() {
        return value * 31 + Objects.hashCode(left) * 17 + Objects.hashCode(right);
    }
}
