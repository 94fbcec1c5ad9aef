package dev.remora.rmi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The client's frames Remora puts in a server exception's trace look exactly like the JVM's own. */
class RepliesTest {

    @Test
    void aJdkFrameAtAnotherLineKeepsWhatTheJvmsElementHas() {
        StackTraceElement jdk = Thread.currentThread().getStackTrace()[0]; // java.lang.Thread.getStackTrace
        assertTrue(jdk.toString().startsWith("java.base/java.lang.Thread.getStackTrace("), jdk::toString);
        StackTraceElement moved = Replies.withLine(jdk, 4242);
        assertEquals(4242, moved.getLineNumber());
        assertEquals(jdk.toString().replace(":" + jdk.getLineNumber() + ")", ":4242)"), moved.toString(),
                "the module version stays out of toString(), as in the JVM's element");
        assertEquals(jdk.getModuleVersion(), moved.getModuleVersion(), "yet it is there");
        assertEquals(jdk.getClassLoaderName(), moved.getClassLoaderName());
        assertEquals(new StackTraceElement(jdk.getClassLoaderName(), jdk.getModuleName(), jdk.getModuleVersion(),
                jdk.getClassName(), jdk.getMethodName(), jdk.getFileName(), 4242), moved);
    }

    @Test
    void anApplicationFrameAtAnotherLine() {
        StackTraceElement app = new Throwable().getStackTrace()[0];
        StackTraceElement moved = Replies.withLine(app, 7);
        assertEquals(app.toString().replace(":" + app.getLineNumber() + ")", ":7)"), moved.toString());
    }
}
