package dev.remora.serializer;

import java.io.ObjectInputFilter;
import java.io.ObjectInputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * An ObjectInputStream's own filter slot (the JDK's private {@code serialFilter}). A class of its own, not in
 * {@link JdkSupport}: every reader uses it, and JdkSupport needs {@code jdk.unsupported}, which a modular
 * application's boot layer may lack.
 */
final class FilterSlot {
    private static final VarHandle HANDLE = find();

    private FilterSlot() {
    }

    /**
     * Puts {@code f} in {@code s}'s own filter slot without calling the filter factory: a reader of Remora's is an
     * ObjectInputStream only to be handed to classes' readObject, and an application's factory must not see it as a
     * stream of its own. False where java.io is not open to this module (without the agent); the caller then uses
     * setObjectInputFilter.
     */
    static boolean set(ObjectInputStream s, ObjectInputFilter f) {
        VarHandle h = HANDLE;
        if (h == null) {
            return false;
        }
        h.set(s, f);
        return true;
    }

    private static VarHandle find() {
        try {
            return MethodHandles.privateLookupIn(ObjectInputStream.class, MethodHandles.lookup())
                    .findVarHandle(ObjectInputStream.class, "serialFilter", ObjectInputFilter.class);
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null; // java.io not opened to this module
        }
    }
}
