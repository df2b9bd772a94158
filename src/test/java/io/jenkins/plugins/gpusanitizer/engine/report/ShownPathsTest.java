package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import io.jenkins.plugins.gpusanitizer.engine.run.RunRecord;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The page names a location's file as the sentences do, from the report alone; only locations change, and the
 * report itself (what the JSON is written from) keeps every full path. The real H200 run of
 * records/h200-2026-12-04c.zip.xz, far: examples/lstm_job.py run from /work/main, with the probe on.
 */
class ShownPathsTest {
    @TempDir
    Path dir;

    @Test
    void onlyLocationsAreRenamedAndTheReportKeepsItsFullPaths() {
        RunDirectory run =
                new RunDirectory(Records.unzip("h200-2026-12-04c", dir).resolve("after/far"));
        RunRecord record = run.readRecord();
        GatePolicy policy = GatePolicy.defaults();
        Report report = new ReportMapper(policy.frameClassifier())
                .toReport(run.analyze(record, policy, List.of()))
                .withExecution(record.execution());
        String before = ReportJson.toJson(report);

        Report shown = ShownPaths.of(report);

        assertThat(ReportJson.toJson(report)).isEqualTo(before);
        DefectJson defect = shown.defects().get(0);
        assertThat(defect.hostLocation().file()).isEqualTo("examples/lstm_job.py");
        assertThat(report.defects().get(0).hostLocation().file()).isEqualTo("/work/main/examples/lstm_job.py");
        assertThat(defect.hostStack())
                .extracting(FrameJson::file)
                .contains("examples/lstm_job.py", "module.py", "function.cpp")
                .noneMatch(f -> f != null && f.startsWith("/"));
        assertThat(shown.diagnosis().faultAt().file()).isEqualTo("examples/lstm_job.py");
        assertThat(shown.failures())
                .allSatisfy(f -> assertThat(f.userFrame().file()).isEqualTo("examples/lstm_job.py"));
        // files that are no source line stay as they are: the inputs read, the probe's output, the run's folders
        assertThat(shown.inputs()).isEqualTo(report.inputs()).allMatch(f -> f.startsWith("/"));
        assertThat(shown.probe().phases())
                .extracting(ProbePhaseJson::file)
                .isEqualTo(report.probe().phases().stream()
                        .map(ProbePhaseJson::file)
                        .toList());
        assertThat(shown.execution()).isEqualTo(report.execution());
        assertThat(shown.defects().get(0).id())
                .isEqualTo(report.defects().get(0).id());
    }
}
