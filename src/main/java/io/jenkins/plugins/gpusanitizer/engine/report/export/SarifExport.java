package io.jenkins.plugins.gpusanitizer.engine.report.export;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.DefectJson;
import io.jenkins.plugins.gpusanitizer.engine.report.LocationJson;
import io.jenkins.plugins.gpusanitizer.engine.report.OutputFile;
import io.jenkins.plugins.gpusanitizer.engine.report.ReasonJson;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportMapper;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The report as SARIF 2.1.0 (validated against the OASIS schema in SarifExportTest): one rule per
 * tool and kind, one result per defect located at its first user host frame with the device line as
 * a related location; suppressed defects carry a SARIF suppression with the rule's reason; the
 * defect fingerprint goes into partialFingerprints so code-scanning services track it across runs.
 */
public final class SarifExport {
    private static final JsonNodeFactory F = JsonNodeFactory.instance;

    private SarifExport() {}

    public static ObjectNode toSarif(Report r) {
        ObjectNode root = F.objectNode();
        root.put("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
        root.put("version", "2.1.0");
        ObjectNode run = root.putArray("runs").addObject();
        ObjectNode driver = run.putObject("tool").putObject("driver");
        driver.put("name", "gpu-sanitize");
        driver.put("semanticVersion", ReportMapper.GENERATOR.replace("gpu-sanitize ", ""));
        driver.put("informationUri", "https://github.com/jenkinsci/gpu-sanitizer-plugin");
        ArrayNode rules = driver.putArray("rules");
        Map<String, Integer> ruleIndex = new LinkedHashMap<>();
        ArrayNode results = run.putArray("results");
        for (DefectJson d : r.defects()) {
            String ruleId = d.tool() + "/" + d.kind();
            Integer index = ruleIndex.get(ruleId);
            if (index == null) {
                index = ruleIndex.size();
                ruleIndex.put(ruleId, index);
                ObjectNode rule = rules.addObject();
                rule.put("id", ruleId);
                rule.putObject("shortDescription").put("text", "compute-sanitizer " + d.tool() + ": " + d.kind());
            }
            ObjectNode res = results.addObject();
            res.put("ruleId", ruleId);
            res.put("ruleIndex", index);
            res.put("level", d.suppressed() ? "note" : "error".equals(d.severity()) ? "error" : "warning");
            res.putObject("message").put("text", message(d));
            ArrayNode locations = res.putArray("locations");
            if (d.hostLocation() != null) {
                locations.add(location(d.hostLocation(), "kernel launched here"));
            } else if (d.deviceLocation() != null) {
                locations.add(location(d.deviceLocation(), "device code"));
            }
            ArrayNode related = null;
            if (d.deviceLocation() != null && d.hostLocation() != null) {
                ObjectNode rel = location(d.deviceLocation(), "device code of kernel " + d.kernel());
                rel.put("id", 1);
                related = res.putArray("relatedLocations");
                related.add(rel);
            }
            if (d.buffer() != null && d.buffer().site() != null) {
                // the buffer the access ran past, where the job allocated it (issue #42)
                ObjectNode rel = location(d.buffer().site(), d.buffer().summary());
                rel.put("id", 2);
                (related == null ? res.putArray("relatedLocations") : related).add(rel);
            }
            res.putObject("partialFingerprints").put("gpuSanitizeDefect/v1", d.id());
            if (d.suppressed()) {
                ObjectNode s = res.putArray("suppressions").addObject();
                s.put("kind", "external");
                s.put(
                        "justification",
                        d.suppressedBy().rule() + ": " + d.suppressedBy().reason());
            }
            ObjectNode props = res.putObject("properties");
            props.put("tool", d.tool());
            props.put("records", d.records());
            if (d.launcher() != null) {
                props.put("launcher", d.launcher());
            }
        }
        ObjectNode inv = run.putArray("invocations").addObject();
        inv.put("executionSuccessful", r.verdict() != Verdict.ERROR);
        ArrayNode notes = inv.putArray("toolExecutionNotifications");
        for (ReasonJson reason : r.reasons()) {
            if (reason.level().equals("error") || reason.level().equals("warning")) {
                ObjectNode n = notes.addObject();
                n.put("level", reason.level().equals("error") ? "error" : "warning");
                n.putObject("message").put("text", reason.message());
            }
        }
        run.putObject("properties").put("verdict", r.verdict().name());
        return root;
    }

    /** A result's message: the defect, its kernel, how many records, its vendor library. */
    private static String message(DefectJson d) {
        StringBuilder text = new StringBuilder(d.message());
        if (d.kernel() != null) {
            text.append(" in kernel ").append(d.kernel());
        }
        text.append(" (").append(d.records()).append(" records)");
        if (d.inVendorLibrary()) {
            text.append(" in vendor library ").append(d.vendorModule());
        }
        return text.toString();
    }

    private static ObjectNode location(LocationJson l, String message) {
        ObjectNode loc = F.objectNode();
        ObjectNode phys = loc.putObject("physicalLocation");
        phys.putObject("artifactLocation").put("uri", uri(l.file()));
        if (l.line() > 0) {
            phys.putObject("region").put("startLine", l.line());
        }
        loc.putObject("message").put("text", message);
        return loc;
    }

    /** A file path as a URI reference (spaces and the like percent-encoded). */
    static String uri(String path) {
        try {
            return new URI(null, null, path.replace('\\', '/'), null).toASCIIString();
        } catch (URISyntaxException e) {
            return path.replaceAll("[^A-Za-z0-9._/-]", "_");
        }
    }

    public static void write(Report r, Path file) throws IOException {
        OutputFile.write(file, out -> ReportJson.mapper().writeValue(out, toSarif(r)));
    }
}
