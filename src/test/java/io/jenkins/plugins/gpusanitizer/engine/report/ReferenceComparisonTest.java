package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** New, outstanding and fixed defects between real H200 reports (records/h200-2026-12-02.zip.xz). */
class ReferenceComparisonTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-02");

    private static Report report(String c) {
        return io.jenkins.plugins.gpusanitizer.engine.Corpus.analyzeRun(c);
    }

    @Test
    void sameBugInTheReferenceIsOutstandingAndFailOnNewPasses() {
        Report far = report("far");
        Report all = ReferenceComparison.apply(far, far, "build #41", false);
        assertThat(all.defects()).allMatch(d -> ReferenceComparison.OUTSTANDING.equals(d.status()));
        assertThat(all.fixed()).isEmpty();
        assertThat(all.verdict()).isEqualTo(Verdict.FAIL);
        Report newOnly = ReferenceComparison.apply(far, far, "build #41", true);
        // the defect no longer decides; the crashes of the job (not defects) still do
        assertThat(newOnly.reasons()).anyMatch(r -> r.code().equals("outstanding"));
        assertThat(newOnly.reasons()).filteredOn(r -> r.level().equals("fail")).allMatch(r -> r.defect() == null);
    }

    @Test
    void aNewBugIsNewAndTheGoneOneIsFixed() {
        Report index = report("index");
        Report c = ReferenceComparison.apply(index, report("far"), "main #7", true);
        assertThat(c.defects())
                .filteredOn(d -> !d.suppressed())
                .allMatch(d -> ReferenceComparison.NEW.equals(d.status()));
        assertThat(c.fixed())
                .singleElement()
                .satisfies(d -> assertThat(d.kernel()).isEqualTo("fused_scale"));
        assertThat(c.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(c.reference()).isEqualTo("main #7");
        assertThat(c.reasons()).anyMatch(r -> r.message().equals("against main #7: 1 new, 0 outstanding, 1 fixed"));
    }

    @Test
    void aLineShiftInUnrelatedCodeKeepsTheDefectOutstanding() {
        Report far = report("far");
        Report.DefectJson d = far.defects().get(0);
        Report.LocationJson shifted = new Report.LocationJson(
                d.hostLocation().file(),
                d.hostLocation().line() + 3,
                d.hostLocation().function(),
                null);
        Report.DefectJson moved = new Report.DefectJson(
                "0123456789abcdef",
                d.tool(),
                d.kind(),
                d.severity(),
                d.message(),
                d.kernel(),
                d.records(),
                false,
                null,
                false,
                null,
                d.launcher(),
                d.deviceLocation(),
                shifted,
                d.examples(),
                d.detail(),
                d.hostStack(),
                null);
        Report now = far.copy()
                .defects(List.of(moved))
                .reference(null)
                .fixed(List.of())
                .probe(null)
                .build();
        Report c = ReferenceComparison.apply(now, far, "ref", false);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.OUTSTANDING);
        assertThat(c.fixed()).isEmpty();
    }
}
