package dev.rivulet.spring.boot.autoconfigure;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The properties table of docs/spring.md is the configuration metadata the build generates from
 * {@link RivuletProperties}: every property, its default and its description, and no other; and every property has a
 * description.
 */
class SpringBootPropertiesDocsTest {

    private static final Path PAGE = Path.of("../../docs/spring.md");
    private static final String MARKER = "<!-- properties:";

    @Test
    void theTableIsTheMetadata() throws IOException {
        List<String> expected = new ArrayList<>();
        for (JsonNode property : metadata().get("properties")) {
            String description = property.path("description").asString("");
            assertThat(description).as("description of " + property.get("name")).isNotBlank();
            JsonNode value = property.path("defaultValue");
            String shown = value.isMissingNode() ? "" : "`" + value.asString() + "`";
            expected.add("| `" + property.get("name").asString() + "` | " + shown + " | " + description + " |");
        }
        expected.sort(null);
        assertThat(table()).isEqualTo(expected);
    }

    private static JsonNode metadata() throws IOException {
        try (InputStream in = SpringBootPropertiesDocsTest.class
                .getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertThat(in).as("generated metadata").isNotNull();
            return JsonMapper.builder().build().readTree(in);
        }
    }

    /** The rows of the table after the marker, header and separator left out. */
    private static List<String> table() throws IOException {
        List<String> lines = Files.readAllLines(PAGE);
        int at = lines.stream().filter(l -> l.startsWith(MARKER)).findFirst().map(lines::indexOf).orElseThrow();
        return lines.subList(at + 3, lines.size()).stream().takeWhile(l -> l.startsWith("|")).toList();
    }
}
