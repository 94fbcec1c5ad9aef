package dev.remora.agent;

import java.lang.instrument.Instrumentation;

/**
 * First stage of the agent: Premain-Class and Agent-Class. It does one thing and never throws. No lambdas, no static
 * state, no reference to any other Remora type that could fail to link: the installer is reached reflectively, and
 * whatever goes wrong becomes one line on stderr while the application carries on with plain RMI.
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
            Class.forName("dev.remora.agent.Installer")
                    .getMethod("install", String.class, Instrumentation.class, boolean.class)
                    .invoke(null, args, inst, attached);
        } catch (Throwable t) {
            Throwable cause = t instanceof java.lang.reflect.InvocationTargetException && t.getCause() != null
                    ? t.getCause() : t;
            System.err.println("[remora] ERROR agent did not start, this JVM runs plain RMI: " + cause);
        }
    }
}
