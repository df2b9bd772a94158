package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.io.UncheckedIOException;

/**
 * The report as a page shows it: every location's file named as the sentences name it ({@link WorkPaths}: its
 * path under the run's working directory, else its base name), while the JSON keeps the full path. A location
 * is every object of the document with a {@code file} and a {@code line} (source lines, host frames, device
 * asserts); other files (inputs, logs, the probe's output) are left as they are. Done on the document's tree so
 * that the renderer stays as it is and a location added to the schema later is named the same way.
 */
final class ShownPaths {
    private ShownPaths() {}

    static Report of(Report r) {
        WorkPaths paths =
                WorkPaths.of(r.execution() == null ? null : r.execution().workDirectory());
        JsonNode tree = ReportJson.mapper().valueToTree(r);
        name(tree, paths);
        try {
            return ReportJson.mapper().treeToValue(tree, Report.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // the document's own tree: cannot happen
        }
    }

    private static void name(JsonNode node, WorkPaths paths) {
        if (node instanceof ObjectNode o && o.path("file").isTextual() && o.has("line")) {
            o.put("file", paths.name(o.get("file").asText()));
        }
        if (node.isContainerNode()) {
            node.forEach(child -> name(child, paths));
        }
    }
}
