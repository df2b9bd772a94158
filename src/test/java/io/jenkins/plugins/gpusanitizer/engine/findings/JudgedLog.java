package io.jenkins.plugins.gpusanitizer.engine.findings;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** For the suppression rules' tests: a memcheck text log of the given records, parsed, grouped and judged. */
final class JudgedLog {
    private JudgedLog() {}

    /** The defects of a log holding {@code records} (compute-sanitizer's text layout), the default rules applied. */
    static List<Defect> defects(Path dir, String records) throws IOException {
        Path f = dir.resolve("memcheck.log");
        Files.writeString(f, "========= COMPUTE-SANITIZER\n" + records + "========= ERROR SUMMARY: 2 errors\n");
        DefectGrouper g = new DefectGrouper(FrameClassifier.defaults());
        new SanitizerTextParser().parse(f, null, g);
        return Analyzer.suppress(g.defects(), GatePolicy.defaultSuppressions());
    }
}
