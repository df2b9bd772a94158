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

    /** The far job's defect (fused_scale, no device line, launched from lstm_job.py:43) with some fields changed. */
    private static DefectJson changed(
            DefectJson d, String id, String kind, String message, LocationJson device, LocationJson host) {
        return new DefectJson(
                id,
                d.tool(),
                kind,
                d.severity(),
                message,
                d.kernel(),
                d.records(),
                false,
                null,
                false,
                null,
                d.launcher(),
                device,
                host,
                d.examples(),
                d.detail(),
                d.hostStack(),
                null);
    }

    private static LocationJson line(LocationJson l, int line) {
        return new LocationJson(l.file(), line, l.function(), l.code());
    }

    /** R with D for its one defect; the reasons about R's defect are about D. */
    private static Report with(Report r, DefectJson d) {
        String old = r.defects().get(0).id();
        return r.copy()
                .defects(List.of(d))
                .reasons(r.reasons().stream()
                        .map(x -> old.equals(x.defect()) ? new ReasonJson(x.level(), x.code(), x.message(), d.id()) : x)
                        .toList())
                .reference(null)
                .fixed(List.of())
                .probe(null)
                .build();
    }

    private static final LocationJson KERNEL_LINE =
            new LocationJson("/work/main/examples/lstm_job.py", 14, "fused_scale", null);

    @Test
    void theFingerprintsAreTheOnesTheRunRecorded() {
        // the comparison changed, the identity of a defect did not: ids equal the report the H200 run wrote
        Report recorded = ReportJson.read(
                io.jenkins.plugins.gpusanitizer.engine.Corpus.runRecord("far").resolve("report.json"));
        assertThat(report("far").defects())
                .extracting(DefectJson::id)
                .containsExactlyElementsOf(
                        recorded.defects().stream().map(DefectJson::id).toList());
    }

    @Test
    void withoutADeviceLineAnotherLineOfTheSameFunctionIsANewDefect() {
        // issue #40, F8: the write launched at lstm_job.py:43 fixed, one at :51 of the same function and kernel added
        Report far = report("far");
        DefectJson d = far.defects().get(0);
        assertThat(d.deviceLocation()).isNull();
        assertThat(d.hostLocation().line()).isEqualTo(43);
        Report now = with(far, changed(d, "0123456789abcdef", d.kind(), d.message(), null, line(d.hostLocation(), 51)));
        Report c = ReferenceComparison.apply(now, far, "main #7", true);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        // under --fail-on new the defect still decides
        assertThat(c.reasons()).anyMatch(r -> r.level().equals("fail") && "0123456789abcdef".equals(r.defect()));
        assertThat(c.fixed()).singleElement().satisfies(f -> assertThat(f.id()).isEqualTo(d.id()));
        assertThat(c.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(c.reasons())
                .filteredOn(r -> r.code().equals(ReferenceComparison.NEW_REASON))
                .singleElement()
                .satisfies(r -> {
                    assertThat(r.level()).isEqualTo("info");
                    assertThat(r.defect()).isEqualTo("0123456789abcdef");
                    assertThat(r.message()).contains("another host line (lstm_job.py:43 there, lstm_job.py:51 here)");
                });
        assertThat(c.reasons()).anyMatch(r -> r.message().equals("against main #7: 1 new, 0 outstanding, 1 fixed"));
    }

    @Test
    void theSameDeviceLineIsOutstandingWhereverTheLaunchMoved() {
        // a line shift in unrelated host code: the kernel's faulting statement is the same
        Report far = report("far");
        DefectJson d = far.defects().get(0);
        Report reference = with(far, changed(d, d.id(), d.kind(), d.message(), KERNEL_LINE, d.hostLocation()));
        Report now = with(
                far, changed(d, "0123456789abcdef", d.kind(), d.message(), KERNEL_LINE, line(d.hostLocation(), 46)));
        Report c = ReferenceComparison.apply(now, reference, "ref", true);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.OUTSTANDING);
        assertThat(c.fixed()).isEmpty();
        assertThat(c.reasons()).noneMatch(r -> r.code().equals(ReferenceComparison.NEW_REASON));
        assertThat(c.reasons())
                .filteredOn(r -> "0123456789abcdef".equals(r.defect()))
                .isNotEmpty()
                .allMatch(r -> r.level().equals("info"));
    }

    @Test
    void anotherDeviceLineOfTheSameKernelIsNewEvenWhenTheLaunchMovedAsMuch() {
        // a fix at :14 and a fault 8 lines lower, the launch below moved by the 8 lines added: not told from code
        // added above both, so not taken for the old defect
        Report far = report("far");
        DefectJson d = far.defects().get(0);
        Report reference = with(far, changed(d, d.id(), d.kind(), d.message(), KERNEL_LINE, d.hostLocation()));
        Report now = with(
                far,
                changed(
                        d,
                        "0123456789abcdef",
                        d.kind(),
                        d.message(),
                        line(KERNEL_LINE, 22),
                        line(d.hostLocation(), 51)));
        Report c = ReferenceComparison.apply(now, reference, "ref", true);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        assertThat(c.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(c.reasons())
                .anyMatch(r -> r.code().equals(ReferenceComparison.NEW_REASON)
                        && r.message().contains("another device line (lstm_job.py:14 there, lstm_job.py:22 here)"));
    }

    @Test
    void anotherAccessAtTheSameLineIsNew() {
        Report far = report("far");
        DefectJson d = far.defects().get(0);
        assertThat(d.kind()).isEqualTo("out-of-bounds");
        assertThat(d.message()).isEqualTo("Invalid __global__ write of size 4 bytes");
        Report misaligned =
                with(far, changed(d, "0123456789abcdef", "misaligned", d.message(), null, d.hostLocation()));
        Report c = ReferenceComparison.apply(misaligned, far, "ref", true);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        assertThat(c.reasons())
                .anyMatch(r -> r.code().equals(ReferenceComparison.NEW_REASON)
                        && r.message().contains("another kind of fault (out-of-bounds there, misaligned here)"));
        Report read = with(
                far,
                changed(
                        d,
                        "0123456789abcdef",
                        d.kind(),
                        "Invalid __global__ read of size 4 bytes",
                        null,
                        d.hostLocation()));
        Report r = ReferenceComparison.apply(read, far, "ref", true);
        assertThat(r.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        assertThat(r.verdict()).isEqualTo(Verdict.FAIL);
        assertThat(ReferenceComparison.difference(d, read.defects().get(0))).startsWith("another access");
    }

    @Test
    void aReferenceThatLacksAFieldIsNotGuessedFrom() {
        // a report written by an older version, without the fields the comparison needs: new, and the reason says
        // which field was missing
        Report far = report("far");
        DefectJson d = far.defects().get(0);
        Report noKind = with(far, changed(d, "fedcba9876543210", null, d.message(), null, d.hostLocation()));
        Report now = with(far, changed(d, "0123456789abcdef", d.kind(), d.message(), null, d.hostLocation()));
        Report c = ReferenceComparison.apply(now, noKind, "old", true);
        assertThat(c.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        assertThat(c.reasons())
                .anyMatch(r -> r.code().equals(ReferenceComparison.NEW_REASON)
                        && r.message().contains("the reference's defect has no kind"));

        Report noDeviceLine = with(far, changed(d, "fedcba9876543210", d.kind(), d.message(), null, d.hostLocation()));
        Report withLine =
                with(far, changed(d, "0123456789abcdef", d.kind(), d.message(), KERNEL_LINE, d.hostLocation()));
        Report l = ReferenceComparison.apply(withLine, noDeviceLine, "old", true);
        assertThat(l.defects().get(0).status()).isEqualTo(ReferenceComparison.NEW);
        assertThat(l.reasons())
                .anyMatch(r -> r.code().equals(ReferenceComparison.NEW_REASON)
                        && r.message().contains("the reference's defect has no device line"));

        // the same fingerprint is the same defect whatever the reference lacks besides
        Report sameId = with(far, changed(d, d.id(), null, null, null, null));
        assertThat(ReferenceComparison.apply(far, sameId, "old", true).defects())
                .allMatch(x -> ReferenceComparison.OUTSTANDING.equals(x.status()));
    }
}
