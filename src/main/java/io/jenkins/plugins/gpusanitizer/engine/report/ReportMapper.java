package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.Diagnosis;
import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.findings.FrameClassifier;
import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeFindings;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/** Maps an {@link Analysis} onto the report document. */
public final class ReportMapper {
    public static final String GENERATOR = "gpu-sanitize 0.1.0";
    private static final int MAX_TRACEBACK = 30;

    private final FrameClassifier classifier;

    public ReportMapper(FrameClassifier classifier) {
        this.classifier = classifier;
    }

    public Report toReport(Analysis a) {
        List<DefectJson> defects = new ArrayList<>();
        List<SanitizerRunJson> runs = new ArrayList<>();
        for (SanitizerRun r : a.runs()) {
            r.defects().stream()
                    .sorted(Comparator.comparing(Defect::suppressed)
                            .thenComparing(
                                    Comparator.comparingLong(Defect::records).reversed()))
                    .forEach(d -> defects.add(defect(d)));
            var primary = r.primary();
            runs.add(new SanitizerRunJson(
                    r.tool().id(),
                    r.recordsFrom(),
                    r.text() == null ? null : r.text().source(),
                    r.xml() == null ? null : r.xml().source(),
                    r.errorsTotal(),
                    r.text() == null ? null : r.text().errorsNotPrinted(),
                    r.recordsParsed(),
                    r.defects().size(),
                    (int) r.defects().stream().filter(Defect::suppressed).count(),
                    primary.complete()
                            && (r.xml() == null
                                    || r.xml().complete()
                                    || r.text() != null && r.text().complete()),
                    primary.targetReturnedError(),
                    primary.appCrashed(),
                    primary.leakSummary(),
                    primary.toolFailures(),
                    merge(
                            r.text() == null ? List.of() : r.text().problems(),
                            r.xml() == null ? List.of() : r.xml().problems())));
        }
        List<FailureJson> failures = new ArrayList<>();
        a.failures().forEach((phase, f) -> failures.add(failure(phase, f)));
        ProbeFindings probe = a.probe();
        AllocationSitesJson sites = probe.allocations() == null ? null : allocationSites(probe.allocations());
        List<MemoryJson> memory = new ArrayList<>();
        for (MemoryCurve c : a.curves()) {
            // the regression run's curve (one per run: default or expandable_segments) gets the probe's sites
            memory.add(memory(c, memory.isEmpty() ? sites : null));
        }
        Diagnosis d = a.diagnosis();
        DiagnosisJson diagnosis = new DiagnosisJson(
                loc(d.reportedAt()),
                loc(d.faultAt()),
                d.faultEvidence(),
                d.summary(),
                d.notes(),
                a.cachingAllocator(),
                probe.operators().stream().map(ReportMapper::operator).toList());
        List<ReasonJson> reasons = a.gate().reasons().stream()
                .map(r -> new ReasonJson(r.level().id(), r.code(), r.message(), r.defect()))
                .toList();
        Report report = Report.builder()
                .generator(GENERATOR)
                .verdict(a.gate().verdict())
                .reasons(reasons)
                .errorsTotal(a.errorsTotal())
                .diagnosis(diagnosis)
                .defects(defects)
                .sanitizerRuns(runs)
                .failures(failures)
                .memory(memory)
                .inputs(a.inputs())
                .probe(probe.isEmpty() ? null : probe(probe, memory.isEmpty() ? sites : null))
                .build();
        return ShownPaths.inWorkspace(report, a.paths());
    }

    private static ProbeJson probe(ProbeFindings p, AllocationSitesJson unattached) {
        return new ProbeJson(
                p.phases().stream()
                        .map(s -> new ProbePhaseJson(
                                s.phase(),
                                s.file(),
                                s.status(),
                                s.processes(),
                                s.records(),
                                s.probeSeconds(),
                                s.watchedCalls(),
                                s.samples(),
                                s.errors()))
                        .toList(),
                p.notes(),
                unattached);
    }

    private static OperatorEvidenceJson operator(ProbeFindings.OperatorEvidence o) {
        ProbeLog.OpFailure f = o.failure();
        ProbeLog.IndexCheck c = f.check();
        return new OperatorEvidenceJson(
                o.phase(),
                f.op(),
                o.summary(),
                loc(f.site()),
                f.stack().stream().map(ReportMapper::loc).toList(),
                f.rank(),
                f.pid(),
                f.exceptionType(),
                f.message(),
                c == null
                        ? null
                        : new IndexJson(
                                c.name(),
                                c.dtype(),
                                c.shape(),
                                c.min(),
                                c.max(),
                                c.size(),
                                c.of(),
                                c.unit(),
                                c.ignoreIndex(),
                                c.outOfRange(),
                                c.statsFrom()),
                f.args().stream()
                        .map(x -> new TensorArgJson(x.name(), x.shape(), x.dtype(), x.device(), x.index()))
                        .toList());
    }

    private static AllocationSitesJson allocationSites(ProbeFindings.AllocationGrowth g) {
        ProbeFindings.OomSites o = g.oom();
        return new AllocationSitesJson(
                g.phase(),
                g.pid(),
                g.rank(),
                g.warmupSeconds(),
                g.endSeconds(),
                g.endAt(),
                g.allocatedAtWarmup(),
                g.allocatedAtEnd(),
                g.reservedAtEnd(),
                g.samples(),
                g.growing(),
                g.summary(),
                g.sites().stream().map(ReportMapper::site).toList(),
                g.series().stream()
                        .map(s -> new SiteSeriesJson(s.label(), s.points()))
                        .toList(),
                o == null
                        ? null
                        : new OomSitesJson(
                                o.pid(),
                                o.rank(),
                                o.t(),
                                loc(o.site()),
                                o.stack().stream().map(ReportMapper::loc).toList(),
                                o.requestedBytes(),
                                o.deviceFreeBytes(),
                                o.snapshotFile(),
                                o.snapshotBytes(),
                                o.sites().stream().map(ReportMapper::site).toList(),
                                o.summary()));
    }

    private static AllocationSiteJson site(ProbeFindings.SiteGrowth s) {
        return new AllocationSiteJson(
                loc(s.site()),
                s.stack().stream().map(ReportMapper::loc).toList(),
                s.bytesAtWarmup(),
                s.blocksAtWarmup(),
                s.bytesAtEnd(),
                s.blocksAtEnd(),
                s.growthBytes());
    }

    private static List<String> merge(List<String> a, List<String> b) {
        List<String> out = new ArrayList<>(a);
        out.addAll(b);
        return out;
    }

    private DefectJson defect(Defect d) {
        List<FrameJson> stack = new ArrayList<>();
        for (Frame f : d.hostStack()) {
            stack.add(new FrameJson(
                    f.function(), f.file(), f.line() > 0 ? f.line() : null, f.module(), f.python(), role(f)));
        }
        return new DefectJson(
                d.id(),
                d.tool().id(),
                d.kind().id(),
                d.error() ? "error" : "warning",
                d.message(),
                d.kernel(),
                d.records(),
                d.suppressed(),
                d.suppressedBy() == null
                        ? null
                        : new SuppressionJson(
                                d.suppressedBy().rule(), d.suppressedBy().reason()),
                d.inVendorLibrary(),
                d.vendorModule(),
                d.launcher(),
                deviceLoc(d.deviceLocation()),
                loc(d.hostLocation()),
                d.examples(),
                d.detail(),
                buffer(d.buffer()),
                stack,
                null);
    }

    private static BufferJson buffer(BufferEvidence b) {
        if (b == null) {
            return null;
        }
        return new BufferJson(
                b.placement().id(),
                b.address(),
                b.base(),
                b.size() < 0 ? null : b.size(),
                b.distance(),
                loc(b.site()),
                b.shape(),
                b.freedAt() == null ? null : loc(b.freedAt()),
                b.summary());
    }

    /** {@code user}, {@code vendor} or {@code library}: lets views highlight user frames and dim vendor ones. */
    private String role(Frame f) {
        if (f.python()) {
            return FrameOrigin.isUserFile(f.file()) ? "user" : "library";
        }
        return classifier.isVendorFrame(f) ? "vendor" : "library";
    }

    private static FailureJson failure(String phase, CudaFailure f) {
        List<SourceLocation> frames = f.frames();
        List<LocationJson> tb = frames.subList(Math.max(0, frames.size() - MAX_TRACEBACK), frames.size()).stream()
                .map(ReportMapper::loc)
                .toList();
        return new FailureJson(
                phase,
                f.source(),
                f.errorClass().id(),
                f.exceptionType(),
                f.message(),
                f.asyncWarning(),
                f.dsaNotCompiled(),
                loc(f.userFrame()),
                tb,
                f.assertions().stream()
                        .map(x -> new AssertionJson(
                                x.file(),
                                x.line(),
                                x.function(),
                                x.condition(),
                                x.count(),
                                x.firstBlock(),
                                x.firstThread()))
                        .toList(),
                f.assertionLines(),
                f.oom() == null
                        ? null
                        : new OomJson(
                                f.oom().triedBytes(),
                                f.oom().gpu(),
                                f.oom().totalBytes(),
                                f.oom().freeBytes(),
                                f.oom().allocatedByPyTorchBytes(),
                                f.oom().reservedUnallocatedBytes()),
                f.rank(),
                f.ranks().stream()
                        .map(r -> new RankFailureJson(
                                r.rank(),
                                r.errorClass().id(),
                                r.exceptionType(),
                                r.message(),
                                loc(r.userFrame()),
                                r.fromLauncher()))
                        .toList(),
                f.launcher() == null
                        ? null
                        : new LauncherJson(
                                f.launcher().kind(),
                                f.launcher().exceptionType(),
                                f.launcher().rootCauseRank(),
                                f.launcher().detail(),
                                loc(f.launcher().userFrame())),
                f.messages().stream()
                        .map(m -> new CudaMessageJson(
                                m.stream(),
                                m.line(),
                                m.rank(),
                                m.text(),
                                m.errorClass().id(),
                                m.count()))
                        .toList(),
                loc(f.compiledFrame()),
                f.generatedFiles(),
                loc(f.modelLine()));
    }

    private static MemoryJson memory(MemoryCurve c, AllocationSitesJson sites) {
        return new MemoryJson(
                c.source(),
                c.label(),
                c.gpu(),
                c.shape().id(),
                c.peakMiB(),
                c.baselineMiB(),
                round(c.warmupSeconds()),
                round(c.growthMiBPerMin()),
                round(c.durationSeconds()),
                c.samples(),
                c.describe(),
                c.points(),
                c.judgedToSeconds() > c.judgedFromSeconds() ? round(c.judgedFromSeconds()) : null,
                c.judgedToSeconds() > c.judgedFromSeconds() ? round(c.judgedToSeconds()) : null,
                round(c.trendMiBPerMin()),
                c.totalMiB(),
                c.hoursToFull() == null ? null : round(c.hoursToFull()),
                round(c.lateRiseMiB()),
                new MemoryPolicyJson(c.policy().minJudgedSeconds(), c.policy().fillHorizonHours()),
                sites,
                c.basis().id(),
                c.basisNote());
    }

    static LocationJson loc(SourceLocation l) {
        return l == null ? null : new LocationJson(l.file(), l.line(), l.function(), l.code());
    }

    private static LocationJson deviceLoc(SourceLocation l) {
        // the text of a run-time kernel's saved source line (RuntimeKernels); other device lines have none
        return l == null
                ? null
                : new LocationJson(l.file(), l.line(), l.function(), RuntimeKernels.isCacheFile(l) ? l.code() : null);
    }

    private static double round(double v) {
        return Math.round(v * 100) / 100.0;
    }
}
