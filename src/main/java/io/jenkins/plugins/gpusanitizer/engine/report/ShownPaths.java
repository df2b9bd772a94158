package io.jenkins.plugins.gpusanitizer.engine.report;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.io.UncheckedIOException;
import java.util.function.UnaryOperator;

/**
 * The report as a page shows it: every location's file named as the sentences name it ({@link WorkPaths}: its
 * path under the run's working directory, else its base name), while the JSON keeps the full path. A location
 * is every object of the document with a {@code file} and a {@code line} (source lines, host frames, device
 * asserts, a buffer's allocation site); other files (inputs, logs, the probe's output) are left as they are. Done on
 * the document's tree so that the renderer stays as it is and a location added to the schema later is named the
 * same way. The JSON's full paths are the working directory's, also for a file the job ran from a run's copy of it
 * ({@link #inWorkspace}).
 */
final class ShownPaths {
    private ShownPaths() {}

    static Report of(Report r) {
        WorkPaths paths =
                WorkPaths.of(r.execution() == null ? null : r.execution().workDirectory());
        return mapped(r, paths::name);
    }

    /**
     * Every location in a run's copy of the working directory named by the working directory's file at the same path
     * (the copy was taken from it as the run started): what a reader opens, what a check annotation and SARIF lead to.
     */
    static Report inWorkspace(Report r, WorkPaths paths) {
        return paths.hasCopies() ? mapped(r, paths::inWorkspace) : r;
    }

    private static Report mapped(Report r, UnaryOperator<String> file) {
        JsonNode tree = ReportJson.mapper().valueToTree(r);
        name(tree, file);
        try {
            return ReportJson.mapper().treeToValue(tree, Report.class);
        } catch (JsonProcessingException e) {
            throw new UncheckedIOException(e); // the document's own tree: cannot happen
        }
    }

    private static void name(JsonNode node, UnaryOperator<String> file) {
        if (node instanceof ObjectNode o && o.path("file").isTextual() && o.has("line")) {
            o.put("file", file.apply(o.get("file").asText()));
        }
        if (node.isContainerNode()) {
            node.forEach(child -> name(child, file));
        }
    }
}
