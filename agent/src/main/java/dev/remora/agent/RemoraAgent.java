package dev.remora.agent;

import java.lang.instrument.Instrumentation;

/**
 * First stage of the agent: Premain-Class and Agent-Class. It does one thing and never throws. No lambdas, no static
 * state, one reference to another Remora type: the call to {@link Installer#install}, inside the {@code try}. The
 * JVM resolves that call when it first runs it (verifying this class needs no Installer type), so a missing or
 * broken Installer is a {@code LinkageError} caught below like any other failure: whatever goes wrong becomes one
 * line on stderr while the application carries on with plain RMI. (A direct call, not reflection: on JDK 25
 * {@code Method.invoke} spins method handles and cost 18 ms, a direct call nothing.)
 */
public final class RemoraAgent {

    private RemoraAgent() {
    }

    public static void premain(String args, Instrumentation inst) {
        start(args, inst, false);
    }

    public static void agentmain(String args, Instrumentation inst) {
        start(args, inst, true);
    }

    private static void start(String args, Instrumentation inst, boolean attached) {
        try {
            Installer.install(args, inst, attached);
        } catch (Throwable t) {
            System.err.println("[remora] ERROR agent did not start, this JVM runs plain RMI: " + t);
        }
    }
}
