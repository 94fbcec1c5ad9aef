package dev.remora.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.remora.agent.config.Property;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;

/** The README's property table is generated from {@link Property}; this fails when it is stale. */
class ReadmeTableTest {
    static final String BEGIN = "<!-- remora-properties:begin (generated: scripts/update-readme.sh) -->\n";
    static final String END = "<!-- remora-properties:end -->";

    @Test
    void readmeTableMatchesTheDeclarations() throws Exception {
        Path readme = Paths.get("..", "README.md");
        String text = Files.readString(readme, StandardCharsets.UTF_8);
        int b = text.indexOf(BEGIN);
        int e = text.indexOf(END);
        assertTrue(b >= 0 && e > b, "README.md lacks the generated property table markers");
        assertEquals(Property.markdownTable(), text.substring(b + BEGIN.length(), e),
                "README.md's property table is stale: run scripts/update-readme.sh");
    }
}
