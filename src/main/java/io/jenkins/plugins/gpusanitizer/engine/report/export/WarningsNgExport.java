package io.jenkins.plugins.gpusanitizer.engine.report.export;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.report.DefectJson;
import io.jenkins.plugins.gpusanitizer.engine.report.LocationJson;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The report in warnings-ng's native JSON issue format ({@code {"issues": [...]}}, the keys of
 * analysis-model's IssuePropertiesParser), so {@code recordIssues tool: issues(pattern: ...)} reads
 * it: one issue per unsuppressed defect at its first user frame, severity ERROR for errors and
 * NORMAL for warnings, category = tool, type = kind, the defect id as fingerprint.
 */
public final class WarningsNgExport {
    private WarningsNgExport() {}

    public static ObjectNode toIssues(Report r) {
        ObjectNode root = JsonNodeFactory.instance.objectNode();
        ArrayNode issues = root.putArray("issues");
        for (DefectJson d : r.defects()) {
            if (d.suppressed()) {
                continue;
            }
            ObjectNode i = issues.addObject();
            LocationJson at = d.hostLocation() != null ? d.hostLocation() : d.deviceLocation();
            if (at != null) {
                i.put("fileName", at.file());
                if (at.line() > 0) {
                    i.put("lineStart", at.line());
                }
            }
            i.put("category", "gpu-sanitizer:" + d.tool());
            i.put("type", d.kind());
            i.put("severity", "error".equals(d.severity()) ? "ERROR" : "NORMAL");
            i.put(
                    "message",
                    d.message() + (d.kernel() == null ? "" : " in kernel " + d.kernel()) + " (" + d.records()
                            + " records)");
            StringBuilder desc = new StringBuilder();
            if (d.deviceLocation() != null) {
                desc.append("device line ")
                        .append(d.deviceLocation().file())
                        .append(':')
                        .append(d.deviceLocation().line())
                        .append(". ");
            }
            if (d.detail() != null) {
                desc.append(d.detail());
            }
            // warnings-ng renders the description as HTML after its own sanitising: keep it plain text
            i.put("description", desc.toString().replace("<", "&lt;").replace(">", "&gt;"));
            i.put("fingerprint", d.id());
            i.put("origin", "gpu-sanitizer");
            i.put("moduleName", d.kernel() == null ? "" : d.kernel());
        }
        return root;
    }

    public static void write(Report r, Path file) throws IOException {
        OutputFile.write(file, out -> ReportJson.mapper().writeValue(out, toIssues(r)));
    }
}
