package dev.remora.fabric.tools;

import dev.remora.fabric.Fabric;
import java.nio.file.Path;

/**
 * Prints whether the fabric transport is available here, why not, and the providers offering tagged RDM
 * endpoints: {@code java -cp remora-fabric-jni.jar dev.remora.fabric.tools.FabricInfo [WORK_DIR]}.
 * Exit status 0 if available, 1 if not. The native loading tests run it in fresh JVMs.
 */
public final class FabricInfo {
    private FabricInfo() {}

    public static void main(String[] args) {
        Fabric.load(args.length > 0 ? Path.of(args[0]) : null);
        if (!Fabric.isAvailable()) {
            Throwable cause = Fabric.unavailabilityCause();
            System.out.println("available: false");
            System.out.println("cause: " + cause.getMessage());
            for (Throwable s : cause.getSuppressed()) {
                System.out.println("  tried: " + s);
            }
            if (cause.getCause() != null) {
                System.out.println("  tried: " + cause.getCause());
            }
            System.exit(1);
        }
        System.out.println("available: true");
        System.out.println("libfabric: " + Fabric.libfabricVersion());
        System.out.println("providers: " + String.join(", ", Fabric.providers()));
    }
}
