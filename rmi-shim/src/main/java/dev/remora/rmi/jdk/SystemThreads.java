package dev.remora.rmi.jdk;

import java.security.AccessController;
import java.security.PrivilegedAction;

/**
 * Every thread Remora starts is made here, as JRMP makes its own ({@code sun.rmi.runtime.NewThreadAction} on JDK 17,
 * {@code RuntimeUtil.newSystemThread} on later JDKs): in the system (root) thread group, with the system class loader
 * as context class loader, and created inside {@code doPrivileged}. Such a thread lives as long as the JVM or its
 * connection, and is started by whichever application thread happens to need it first (an export, a call); a thread
 * that inherited that thread's context class loader, thread group, access control context (its protection domains)
 * or inheritable thread-local values would keep them, and with them the application's class loader, reachable after
 * the application let go (JDK bug 4404702). Unlike JRMP, inheritable thread-local values are not copied at all:
 * nothing of the creating thread's context belongs to a runtime thread.
 */
public final class SystemThreads {
    private static final ThreadGroup ROOT = root();

    private SystemThreads() {
    }

    private static ThreadGroup root() {
        ThreadGroup g = Thread.currentThread().getThreadGroup();
        try {
            for (ThreadGroup p; (p = g.getParent()) != null;) {
                g = p;
            }
        } catch (SecurityException e) {
            // a SecurityManager (Remora then leaves RMI to JRMP and starts no thread): the highest group allowed
        }
        return g;
    }

    /** A new, not started thread named {@code name} that runs {@code task}. */
    @SuppressWarnings("removal") // doPrivileged: on JDK 17 the thread's inherited context is cut at this frame
    public static Thread newThread(Runnable task, String name, boolean daemon) {
        return AccessController.doPrivileged(new PrivilegedAction<Thread>() { // not a lambda: nothing spun
            @Override
            public Thread run() {
                Thread t = new Thread(ROOT, task, name, 0, false);
                t.setContextClassLoader(ClassLoader.getSystemClassLoader());
                t.setDaemon(daemon);
                return t;
            }
        });
    }
}
