package dev.remora.rmi;

import java.lang.reflect.InvocationHandler;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import java.rmi.server.ObjID;

/**
 * The result of a future call (remora.future on the server), returned to the caller at once as a proxy implementing
 * the method's return interface. Its first use waits for the reply, read through the same path as a synchronous
 * call's ({@link RemoraRouter#outcome}, {@link Replies}); every use then runs on the result itself, {@code equals},
 * {@code hashCode} and {@code toString} included. An exception the call ended with is thrown by every use, as the
 * call would have thrown it (a checked exception the used method does not declare arrives wrapped in the
 * proxy's UndeclaredThrowableException). A null result: every use throws NullPointerException, as using the null the
 * synchronous call returned would.
 */
final class FutureResult implements InvocationHandler {
    private final RemoraRouter router;
    private final ObjID id;
    private final Marshal.MethodInfo method;
    // until resolved (then dropped: the connection and buffers are not kept by a future kept long)
    private ClientConnection connection;
    private PendingCall call;
    private boolean resolved; // guarded by this
    private Object value;
    private Throwable thrown;

    FutureResult(RemoraRouter router, ClientConnection connection, PendingCall call, ObjID id,
            Marshal.MethodInfo method) {
        this.router = router;
        this.connection = connection;
        this.call = call;
        this.id = id;
        this.method = method;
    }

    /** Set once a future was made in this JVM: until then a call's arguments are not looked at. */
    private static volatile boolean made;

    static Object proxy(Class<?> type, FutureResult handler) {
        made = true;
        return Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type}, handler);
    }

    /**
     * A future passed as an argument of a remote call (of any endpoint, JRMP's too) goes as its result, waited for
     * here, as the synchronous call's result would have been passed: the proxy itself is no serializable value.
     * Only the arguments themselves, not futures inside them. {@code args} is the call's own array (the stub's).
     *
     * @throws Throwable what the future's call ended with: the call is then not made
     */
    static void resolveArguments(Object[] args) throws Throwable {
        if (!made || args == null) {
            return;
        }
        for (int i = 0; i < args.length; i++) {
            Object a = args[i];
            if (a instanceof Proxy && Proxy.isProxyClass(a.getClass())
                    && Proxy.getInvocationHandler(a) instanceof FutureResult) {
                args[i] = ((FutureResult) Proxy.getInvocationHandler(a)).get();
            }
        }
    }

    /** The result, waiting for it the first time; throws what the call ended with. */
    synchronized Object get() throws Throwable {
        if (!resolved) {
            Object[] outcome = router.outcome(connection, call, id, method);
            value = outcome[0];
            thrown = (Throwable) outcome[1];
            resolved = true;
            connection = null;
            call = null;
        }
        if (thrown != null) {
            throw thrown;
        }
        return value;
    }

    @Override
    public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
        Object target = get();
        if (target == null) {
            throw new NullPointerException("the future call's result is null (" + m.getName() + " called on it)");
        }
        if (m.getDeclaringClass() == Object.class && m.getName().equals("equals") && args[0] == proxy) {
            return Boolean.TRUE; // the proxy is its result, which equals itself
        }
        try {
            if (!m.canAccess(target)) {
                m.setAccessible(true);
            }
            return m.invoke(target, args);
        } catch (InvocationTargetException e) {
            throw e.getTargetException();
        }
    }
}
