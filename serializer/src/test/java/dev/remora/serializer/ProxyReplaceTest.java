package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ObjectStreamException;
import java.io.Serializable;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Proxy;
import org.junit.jupiter.api.Test;

/**
 * A proxy's writeReplace and readResolve are those its interfaces declare, answered by its handler, as the JDK's
 * ObjectStreamClass finds them on the proxy class (jtreg proxy/replace).
 */
class ProxyReplaceTest {
    public interface WriteReplace {
        Object writeReplace() throws ObjectStreamException;
    }

    public interface ReadResolve {
        Object readResolve() throws ObjectStreamException;
    }

    public interface Resolved {
    }

    static final class Handler implements InvocationHandler, Serializable {
        private static final long serialVersionUID = 1L;

        @Override
        public Object invoke(Object proxy, Method m, Object[] args) throws Throwable {
            ClassLoader l = ProxyReplaceTest.class.getClassLoader();
            switch (m.getName()) {
                case "writeReplace":
                    return Proxy.newProxyInstance(l, new Class<?>[] {ReadResolve.class}, this);
                case "readResolve":
                    return Proxy.newProxyInstance(l, new Class<?>[] {Resolved.class}, this);
                case "hashCode":
                    return System.identityHashCode(proxy);
                case "equals":
                    return proxy == args[0];
                case "toString":
                    return "proxy";
                default:
                    throw new AssertionError(m);
            }
        }
    }

    @Test
    void aProxyIsReplacedAndResolvedThroughItsInterfaces() throws Exception {
        Object p = Proxy.newProxyInstance(getClass().getClassLoader(), new Class<?>[] {WriteReplace.class},
                new Handler());
        Object jdk;
        try (java.io.ObjectInputStream in = new java.io.ObjectInputStream(
                new java.io.ByteArrayInputStream(RoundTrip.jdkBytes(p)))) {
            jdk = in.readObject();
        }
        assertTrue(jdk instanceof Resolved, "the JDK's own outcome");
        Object ours = new RoundTrip(SerializerOptions.DEFAULTS).roundTrip(p);
        assertTrue(ours instanceof Resolved, () -> "Remora read " + ours.getClass());
        assertEquals(jdk.getClass(), ours.getClass());
    }
}
