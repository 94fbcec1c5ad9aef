package dev.remora.rmi.fast;

import java.io.Serializable;
import java.rmi.Remote;
import java.rmi.RemoteException;
import java.util.Objects;

/** The remote interface of the fast-marshalling tests. */
public interface Svc extends Remote {
    Node echo(Node n) throws RemoteException;

    int add(int a, int b) throws RemoteException;

    String describe(int i, String s, long l, double d, Object any) throws RemoteException;

    Svc self() throws RemoteException;

    String askBack(Svc other) throws RemoteException;

    void fail(String message) throws RemoteException;

    void remoteFail() throws RemoteException;

    Object any(Object o) throws RemoteException;

    /** A small tree, with a back reference to its root in every node. */
    final class Node implements Serializable {
        private static final long serialVersionUID = 1L;
        final int value;
        final Node left;
        final Node right;
        Node root;

        Node(int value, Node left, Node right) {
            this.value = value;
            this.left = left;
            this.right = right;
        }

        static Node tree(int depth, int[] counter) {
            if (depth == 0) {
                return null;
            }
            return new Node(counter[0]++, tree(depth - 1, counter), tree(depth - 1, counter));
        }

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Node)) {
                return false;
            }
            Node n = (Node) o;
            return value == n.value && Objects.equals(left, n.left) && Objects.equals(right, n.right);
        }

        @Override
        public int hashCode() {
            return value;
        }
    }

    final class Point implements Serializable {
        private static final long serialVersionUID = 1L;
        final double x;
        final double y;

        Point(double x, double y) {
            this.x = x;
            this.y = y;
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Point && ((Point) o).x == x && ((Point) o).y == y;
        }

        @Override
        public int hashCode() {
            return Double.hashCode(x);
        }
    }

    /** An application exception, thrown as is. */
    final class Oops extends Exception {
        private static final long serialVersionUID = 1L;

        Oops(String m) {
            super(m);
        }
    }

    class Impl implements Svc {
        @Override
        public Node echo(Node n) {
            return n;
        }

        @Override
        public int add(int a, int b) {
            return a + b;
        }

        @Override
        public String describe(int i, String s, long l, double d, Object any) {
            return i + "/" + s + "/" + l + "/" + d + "/" + any;
        }

        @Override
        public Svc self() {
            return this;
        }

        @Override
        public String askBack(Svc other) throws RemoteException {
            return "other says " + other.add(20, 22);
        }

        @Override
        public void fail(String message) {
            throw new IllegalStateException(message);
        }

        @Override
        public void remoteFail() throws RemoteException {
            throw new RemoteException("remote trouble");
        }

        @Override
        public Object any(Object o) {
            return o;
        }
    }
}
