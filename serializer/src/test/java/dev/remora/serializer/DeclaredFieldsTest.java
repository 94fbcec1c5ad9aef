package dev.remora.serializer;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InvalidClassException;
import java.io.ObjectOutputStream;
import java.io.ObjectStreamField;
import java.io.Serializable;
import org.junit.jupiter.api.Test;

/** serialPersistentFields the JDK refuses are refused as the JDK refuses them (jtreg duplicateSerialFields,
 * badSerialPersistentField). */
class DeclaredFieldsTest {

    static final class Twice implements Serializable {
        private static final long serialVersionUID = 0L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("i", int.class), new ObjectStreamField("i", int.class)};
        int i;
    }

    static final class Unmatched implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("nonexistent", int.class)};
    }

    /** Declares a field it has not, and writes it with putFields: fine. */
    static final class PutsIt implements Serializable {
        private static final long serialVersionUID = 1L;
        private static final ObjectStreamField[] serialPersistentFields = {
            new ObjectStreamField("virtual", int.class)};

        private void writeObject(ObjectOutputStream out) throws IOException {
            out.putFields().put("virtual", 5);
            out.writeFields();
        }
    }

    private static String jdkWrite(Object o) {
        try (ObjectOutputStream out = new ObjectOutputStream(new ByteArrayOutputStream())) {
            out.writeObject(o);
            return "written";
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    private static String remoraWrite(Object o) {
        try {
            new RoundTrip().write(o);
            return "written";
        } catch (IOException e) {
            return e.getClass().getSimpleName() + ": " + e.getMessage();
        }
    }

    @Test
    void writesFailOrNotAsInTheJdk() throws Exception {
        for (Object o : new Object[] {new Twice(), new Unmatched(), new PutsIt()}) {
            assertEquals(jdkWrite(o), remoraWrite(o), o.getClass().getSimpleName());
        }
        assertThrows(InvalidClassException.class, () -> new RoundTrip().write(new Twice()));
    }
}
