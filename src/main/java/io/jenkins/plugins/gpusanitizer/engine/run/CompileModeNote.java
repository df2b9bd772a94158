package io.jenkins.plugins.gpusanitizer.engine.run;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashSet;
import java.util.Set;

/**
 * What the probe changed in the sanitizer run: a model compiled with {@code torch.compile} in a mode that
 * replays CUDA graph trees or autotunes ran in the default mode (issue #25, 2: under compute-sanitizer
 * the graph trees stop the job and max-autotune-no-cudagraphs crashed the tool, on the H200). The tool
 * then checked the compiled kernels' code, not the graph replay nor the autotuned choices, which the
 * blocking and regression runs ran in the job's own mode: said on the phase and in the report.
 */
final class CompileModeNote {
    private static final ObjectMapper JSON = new ObjectMapper();
    /** The probe writes little in this mode; a bound all the same. */
    private static final int MAX_LINES = 10_000;

    private CompileModeNote() {}

    static PhaseResult add(PhaseResult result, Path phaseDir, Tool tool, RunReasons reasons, WorkPaths paths) {
        Set<String> changed = changed(phaseDir.resolve(RunLayout.PROBE_JSONL), paths);
        if (changed.isEmpty()) {
            return result;
        }
        String what = "torch.compile(" + String.join("; ", changed) + ") ran in the default mode under " + tool.id()
                + " (its CUDA graph trees and autotuning do not run under compute-sanitizer)";
        reasons.addOnce(Reason.info(
                "compile-mode",
                what + ": " + tool.id() + " checked the compiled kernels' code, not the CUDA graph replay or the"
                        + " autotuned kernel choices; the blocking and regression runs ran the job's own mode"));
        return result.withNote(what);
    }

    /** The distinct requests the probe changed, with the line that made them. */
    static Set<String> changed(Path probeJsonl, WorkPaths paths) {
        Set<String> changed = new LinkedHashSet<>();
        if (!Files.isRegularFile(probeJsonl)) {
            return changed;
        }
        try (BufferedReader in = Files.newBufferedReader(probeJsonl, StandardCharsets.UTF_8)) {
            String line;
            for (int n = 0; (line = in.readLine()) != null && n < MAX_LINES; n++) {
                if (!line.contains("\"compile-mode\"")) {
                    continue;
                }
                JsonNode record = JSON.readTree(line);
                if (!"compile-mode".equals(record.path("type").asText())) {
                    continue;
                }
                JsonNode at = record.path("at");
                String where = at.hasNonNull("file")
                        ? " at " + paths.name(at.path("file").asText()) + ":"
                                + at.path("line").asInt()
                        : "";
                changed.add(record.path("requested").asText("?") + where);
            }
        } catch (IOException | RuntimeException e) {
            // a line cut by a crash: what was read stands
        }
        return changed;
    }
}
