package dev.remora.agent;

import jdk.internal.access.SharedSecrets;

/**
 * The members of {@code jdk.internal.access} the agent uses, called directly: through reflection, the first call spun a
 * dozen {@code LambdaForm} classes in every JVM on JDK 18 and later (core reflection is built on method handles
 * there). Compiled on its own with {@code --add-exports java.base/jdk.internal.access} (src/main/java-internal); used
 * only after {@link Installer#exportFromJavaBase} has exported the package to Remora's module, and the same in JDK 17
 * and 25.
 */
final class JavaBaseDirect {
    private JavaBaseDirect() {
    }

    /**
     * Registers {@code hook} in java.base's system shutdown slot {@code slot} (the application's hooks run in slot 1).
     * Throws InternalError when the slot is taken, IllegalStateException when shutdown has started.
     */
    static void registerShutdownHook(int slot, Runnable hook) {
        SharedSecrets.getJavaLangAccess().registerShutdownHook(slot, false, hook);
    }
}
