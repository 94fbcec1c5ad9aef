package dev.remora.serializer;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.rmi.RemoteException;
import java.rmi.ServerException;
import java.util.Arrays;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;

/** Results of RMI calls are often exceptions: Throwable's own writeObject/readObject, causes, suppressed, traces. */
class ExceptionTest {

    static final class AppException extends Exception {
        final int code;

        AppException(String m, int code, Throwable cause) {
            super(m, cause);
            this.code = code;
        }
    }

    private static String describe(Throwable t) {
        StringBuilder sb = new StringBuilder();
        for (Throwable c = t; c != null; c = c.getCause()) {
            sb.append(c.getClass().getName()).append(':').append(c.getMessage())
                    .append(" trace=").append(c.getStackTrace().length)
                    .append(" top=").append(c.getStackTrace().length > 0 ? c.getStackTrace()[0] : null)
                    .append(" suppressed=").append(Arrays.toString(c.getSuppressed())).append(" | ");
            if (c.getCause() == c) {
                break;
            }
        }
        return sb.toString();
    }

    @Test
    void exceptionsRoundTripLikeTheJdk() throws Exception {
        AppException e = new AppException("app failed", 42, new IllegalStateException("inner",
                new IOException("io")));
        e.addSuppressed(new RuntimeException("suppressed one"));
        ServerException rmi = new ServerException("server side", e);
        RemoteException plain = new RemoteException("no cause");
        Throwable noTrace = new IllegalArgumentException("no trace");
        noTrace.setStackTrace(new StackTraceElement[0]);
        RoundTrip rt = new RoundTrip();
        for (Throwable t : new Throwable[] {e, rmi, plain, noTrace}) {
            Throwable ours = (Throwable) rt.roundTrip(t);
            Throwable jdk = (Throwable) RoundTrip.jdk(t);
            assertEquals(describe(jdk), describe(ours));
            assertArrayEquals(jdk.getStackTrace(), ours.getStackTrace());
        }
        AppException back = (AppException) rt.roundTrip(e);
        assertEquals(42, back.code);
        assertEquals(1, back.getSuppressed().length);
        Throwable self = (Throwable) rt.roundTrip(new RuntimeException("x"));
        assertNull(self.getCause());
        RemoteException r = (RemoteException) rt.roundTrip(rmi);
        assertSame(r.detail, r.getCause());
    }
}
