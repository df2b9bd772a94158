package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import org.junit.jupiter.api.Test;

/**
 * What the Jenkins step hands a run from its reference build's report (issue #49), on the report of nanoGPT's gate on
 * the H100 (records/h100-2026-12-07-kernels): the 67 kernels of its census and the 2,512 MiB its regression run held.
 */
class ReferenceBuildTest {
    @Test
    void theReferenceReportsCensusAndMemoryReachTheSpec() {
        RunSpec spec = new RunSpec();
        ReferenceBuild.handTo(
                spec, ReportJson.read(Records.unpacked("h100-2026-12-07-kernels/nanogpt-kernels/report.json")));

        assertThat(spec.referenceKernels()).hasSize(67).doesNotHaveDuplicates();
        assertThat(spec.referencePeakMiB()).isEqualTo(2512.0);
    }

    @Test
    void withoutAReferenceBuildNothingIsSet() {
        RunSpec spec = new RunSpec();
        ReferenceBuild.handTo(spec, null);

        assertThat(spec.referenceKernels()).isNull();
        assertThat(spec.referencePeakMiB()).isNull();
    }
}
