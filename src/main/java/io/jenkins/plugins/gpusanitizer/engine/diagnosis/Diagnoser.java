package io.jenkins.plugins.gpusanitizer.engine.diagnosis;

import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.findings.FrameClassifier;
import io.jenkins.plugins.gpusanitizer.engine.findings.KernelNames;
import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.model.Kind;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaErrorClass;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeFindings;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;

/**
 * Reads the phases against each other. CUDA reports kernel faults asynchronously, so the normal
 * run's traceback blames whatever line synchronised next ({@code loss.item()}); the blocking run
 * and the sanitizer's launch-time host stack name the real launch.
 */
public final class Diagnoser {
    private final WorkPaths paths;

    /** Names the job's files by their base names (the working directory is unknown). */
    public Diagnoser() {
        this(WorkPaths.UNKNOWN);
    }

    /** @param paths names the job's files by their path under the working directory */
    public Diagnoser(WorkPaths paths) {
        this.paths = paths;
    }

    public Diagnosis diagnose(
            List<SanitizerRun> runs,
            CudaFailure async,
            CudaFailure blocking,
            List<MemoryCurve> curves,
            Boolean cachingAllocator) {
        return diagnose(runs, async, blocking, curves, cachingAllocator, ProbeFindings.NONE);
    }

    /** @param probe the in-process probe's evidence: the failing operator's arguments, allocation sites */
    public Diagnosis diagnose(
            List<SanitizerRun> runs,
            CudaFailure async,
            CudaFailure blocking,
            List<MemoryCurve> curves,
            Boolean cachingAllocator,
            ProbeFindings probe) {
        List<String> notes = new ArrayList<>();
        Located at = locate(runs, async, blocking, probe, notes);
        CudaFailure compiled = blocking != null && blocking.compiledFrame() != null
                ? blocking
                : async != null && async.compiledFrame() != null ? async : null;
        String summary = summary(at, async, blocking, compiled, notes);
        distributedNotes(blocking != null && isFailure(blocking) ? blocking : async, notes);
        messageNotes("blocking", blocking, notes);
        messageNotes("normal", async, notes);
        if (compiled != null) {
            compiledNotes(compiled, notes);
        }
        agreementNotes(at, async, blocking, notes);
        assertNotes(async, blocking, notes);
        toolNotes(runs, cachingAllocator, notes);
        memoryNotes(curves, notes);
        if (probe != null) {
            summary = probeNotes(probe, summary, notes);
        }
        return new Diagnosis(at.reported(), at.fault(), at.evidence(), summary, notes);
    }

    /**
     * Where each run puts the error, and which one is the fault.
     *
     * @param reported        the normal run's line (often innocent: asynchronous report)
     * @param top             the sanitizer's defect most worth attention
     * @param sanitizerAt     its launch site
     * @param blockingAt      the blocking run's line, or the call the probe saw raise when its traceback was lost
     * @param corruptionFirst an out-of-bounds access memcheck saw before the blocking run failed elsewhere
     * @param fault           the fault's line, or null (none, or a finding inside PyTorch's own kernel)
     * @param evidence        what names the fault
     * @param torchModule     the PyTorch library whose own kernel the finding is in, or null
     */
    private record Located(
            SourceLocation reported,
            Defect top,
            SourceLocation sanitizerAt,
            SourceLocation blockingAt,
            boolean corruptionFirst,
            SourceLocation fault,
            String evidence,
            String torchModule) {
        boolean insideTorch() {
            return torchModule != null;
        }
    }

    private Located locate(
            List<SanitizerRun> runs, CudaFailure async, CudaFailure blocking, ProbeFindings probe, List<String> notes) {
        SourceLocation reported = async != null && isFailure(async) ? async.userFrame() : null;
        Defect top = topDefect(runs);
        SourceLocation sanitizerAt = top == null ? null : top.hostLocation();
        SourceLocation blockingAt =
                blocking != null && isFailure(blocking) && !blocking.asyncWarning() ? blocking.userFrame() : null;
        ProbeFindings.OperatorEvidence raised =
                blockingAt == null && blocking != null && isFailure(blocking) ? raisedInBlockingRun(probe) : null;
        if (raised != null) {
            // the blocking run failed but its traceback was lost (the process killed first, e.g. by NCCL's
            // watchdog aborting on the same error); the probe saw which call raised it, launches being synchronous
            blockingAt = raised.failure().site();
            notes.add("The blocking run's traceback was lost (the process was ended before Python printed it);"
                    + " the in-process probe saw " + raised.failure().op() + " raise the error at " + show(blockingAt)
                    + (raised.failure().rank() == null
                            ? ""
                            : " on rank " + raised.failure().rank()) + ".");
        }
        // memcheck checks every access: an out-of-bounds access in a user kernel happened before whatever
        // the blocking run tripped over elsewhere, which is then most likely its victim (stray writes land in
        // live tensors, e.g. the labels a later cross_entropy asserts on)
        boolean corruptionFirst = top != null
                && top.kind().isAccessError()
                && !top.inVendorLibrary()
                && sanitizerAt != null
                && blockingAt != null
                && !sanitizerAt.sameLine(blockingAt);
        SourceLocation fault = corruptionFirst ? sanitizerAt : blockingAt != null ? blockingAt : sanitizerAt;
        String evidence = evidence(corruptionFirst, sanitizerAt, blockingAt, raised != null);
        // initcheck/racecheck/synccheck findings inside one of PyTorch's own kernels (issue #25, 3): the library's
        // finding for the call at the user's line, not a fault located in the job's code
        String torchModule = top == null || top.kind().isAccessError() || top.kind() == Kind.DEVICE_ASSERT
                ? null
                : FrameClassifier.defaults().launchingTorchModule(top.hostStack());
        if (torchModule != null && fault == sanitizerAt && blockingAt == null) {
            return new Located(reported, top, sanitizerAt, null, corruptionFirst, null, null, torchModule);
        }
        return new Located(reported, top, sanitizerAt, blockingAt, corruptionFirst, fault, evidence, null);
    }

    private static String evidence(
            boolean corruptionFirst, SourceLocation sanitizerAt, SourceLocation blockingAt, boolean probeRaised) {
        String blockingEvidence = probeRaised ? "blocking-probe" : "blocking";
        return corruptionFirst
                ? "sanitizer"
                : blockingAt != null
                        ? (sanitizerAt != null && sanitizerAt.sameLine(blockingAt)
                                ? blockingEvidence + "+sanitizer"
                                : blockingEvidence)
                        : sanitizerAt != null ? "sanitizer" : null;
    }

    /** The one sentence for the build page, with the notes that explain it. */
    private String summary(
            Located at, CudaFailure async, CudaFailure blocking, CudaFailure compiled, List<String> notes) {
        Defect top = at.top();
        SourceLocation reported = at.reported();
        SourceLocation fault = at.fault();
        String reportedShown = reported == null ? null : show(reported) + onRank(async);
        String faultShown = fault == null ? null : show(fault) + (fault == at.blockingAt() ? onRank(blocking) : "");
        String inModel = compiled != null && compiled.modelLine() != null
                ? " (in the compiled model: " + show(compiled.modelLine()) + ")"
                : "";
        if (at.insideTorch()) {
            notes.add(top.tool().id() + " reports what PyTorch's own kernels do with memory they are given; such"
                    + " findings are graded by the tool's action (" + top.tool().id() + ") and listed as PyTorch's,"
                    + " never as the job's line (docs/findings-in-pytorch.md).");
            return top.tool().id() + " found " + top.message() + " inside PyTorch's own kernel "
                    + KernelNames.bare(top.kernel()) + " (" + at.torchModule()
                    + (top.launcher() == null ? "" : ", launched by " + KernelNames.bare(top.launcher())) + ")"
                    + (at.sanitizerAt() == null ? "" : ", for the call at " + show(at.sanitizerAt()))
                    + ": a finding inside the library, not a fault located in the job's code.";
        }
        if (at.corruptionFirst()) {
            notes.add("The line a traceback names is only where the error surfaced: kernel " + top.kernel()
                    + " accessed memory out of bounds before " + show(at.blockingAt())
                    + " ran, and stray writes land in live tensors (labels, indices) that later operations check.");
            if (reported != null && !reported.sameLine(fault)) {
                notes.add("CUDA reports kernel faults asynchronously: the normal run's " + show(reported)
                        + " is not the bug either.");
            }
            return "compute-sanitizer found " + top.message() + " in kernel " + top.kernel()
                    + deviceLine(top) + ", launched from " + show(fault) + "; the blocking run's failure at "
                    + show(at.blockingAt()) + " is most likely its consequence.";
        }
        if (reported != null && fault != null && !reported.sameLine(fault)) {
            notes.add("CUDA reports kernel faults asynchronously: " + show(reported)
                    + " only synchronised with the GPU after the faulting kernel; it is not the bug.");
            return "The normal run reported the error at " + reportedShown + "; the "
                    + (at.blockingAt() != null ? "blocking run" : "sanitizer") + " shows it at " + faultShown + inModel
                    + ".";
        }
        if (reported != null && fault != null) {
            return "The error is at " + faultShown + inModel + " (normal, blocking and sanitizer runs agree).";
        }
        if (fault != null) {
            return "The fault is at " + faultShown + inModel + " (" + at.evidence() + ").";
        }
        return unlocated(at, async, blocking, reportedShown);
    }

    /** The summary when no run names the fault's line. */
    private static String unlocated(Located at, CudaFailure async, CudaFailure blocking, String reportedShown) {
        if (at.reported() != null && async.asyncWarning()) {
            return "The normal run reported the error at " + reportedShown
                    + "; without a blocking run or sanitizer finding this line may be innocent (asynchronous report).";
        }
        if (at.reported() != null) {
            return "The job failed at " + reportedShown + ".";
        }
        if (at.top() != null) {
            return "The sanitizer found " + at.top().message() + " in kernel "
                    + at.top().kernel() + ".";
        }
        if (caught(blocking) || caught(async)) {
            CudaFailure f = caught(blocking) ? blocking : async;
            CudaFailure.CudaMessage m = f.firstMessage();
            return "The " + (f == blocking ? "blocking" : "normal")
                    + " run hit a GPU fault and printed it without a "
                    + "traceback: `" + shorten(m.text()) + "` (" + m.stream() + " line " + m.line() + "); no line of "
                    + "the job is named.";
        }
        return "No fault located.";
    }

    /** Whether the sanitizer and the blocking run agree, and whether the blocking run can be believed. */
    private void agreementNotes(Located at, CudaFailure async, CudaFailure blocking, List<String> notes) {
        Defect top = at.top();
        SourceLocation blockingAt = at.blockingAt();
        if (top != null && top.hostLocation() != null) {
            if (blockingAt != null && at.sanitizerAt().sameLine(blockingAt)) {
                notes.add("compute-sanitizer confirms: kernel " + top.kernel() + " was launched from "
                        + show(at.sanitizerAt()) + ".");
            } else if (blockingAt != null && !at.corruptionFirst()) {
                notes.add("compute-sanitizer's first defect was launched from " + show(at.sanitizerAt())
                        + ", the blocking run failed at " + show(blockingAt) + ": check both.");
            }
        }
        if (blocking != null && isFailure(blocking) && blocking.asyncWarning()) {
            notes.add("The blocking run still printed PyTorch's \"might be asynchronously reported\" warning: "
                    + "CUDA_LAUNCH_BLOCKING was not in effect, so its line is not reliable.");
        }
        if (blocking != null && blocking.errorClass() == CudaErrorClass.NONE && async != null && isFailure(async)) {
            notes.add(
                    "The blocking run did not fail where the normal run did: the fault may depend on timing or on the input.");
        }
    }

    /** The device assert's own words, and why TORCH_USE_CUDA_DSA did not help. */
    private static void assertNotes(CudaFailure async, CudaFailure blocking, List<String> notes) {
        CudaFailure assertFailure = async != null && async.errorClass() == CudaErrorClass.DEVICE_ASSERT
                ? async
                : blocking != null && blocking.errorClass() == CudaErrorClass.DEVICE_ASSERT ? blocking : null;
        if (assertFailure == null) {
            return;
        }
        assertFailure.assertions().stream()
                .findFirst()
                .ifPresent(a -> notes.add("Device assert: " + a.condition() + " at " + a.file() + ":" + a.line() + " ("
                        + a.count() + " thread(s) failed it)."));
        if (assertFailure.dsaNotCompiled()) {
            notes.add("This torch build has no device-side assertion tracking: TORCH_USE_CUDA_DSA is a build-time "
                    + "macro, setting it at run time does nothing; the blocking run names the operator instead.");
        }
    }

    /** What the tools could not see (the caching allocator) and where their defects are (vendor libraries). */
    private static void toolNotes(List<SanitizerRun> runs, Boolean cachingAllocator, List<String> notes) {
        boolean memcheck = runs.stream().anyMatch(r -> r.tool() == Tool.MEMCHECK);
        if (memcheck && Boolean.TRUE.equals(cachingAllocator)) {
            notes.add(
                    "memcheck ran with PyTorch's caching allocator on: small out-of-bounds accesses were not checkable "
                            + "(they land inside larger cached blocks). Set PYTORCH_NO_CUDA_MEMORY_CACHING=1 for the sanitizer run.");
        }
        long vendorMemcheck = runs.stream()
                .flatMap(r -> r.unsuppressed().stream())
                .filter(d -> d.tool() == Tool.MEMCHECK && d.inVendorLibrary())
                .count();
        if (vendorMemcheck > 0) {
            notes.add(
                    vendorMemcheck + " memcheck defect(s) are in vendor library kernels: usually the caller passed bad "
                            + "arguments (shapes, strides, workspace sizes) to the library.");
        }
    }

    /** The call the probe saw raise a CUDA error in the blocking run (where launches are synchronous), or null. */
    private static ProbeFindings.OperatorEvidence raisedInBlockingRun(ProbeFindings probe) {
        if (probe == null) {
            return null;
        }
        return probe.operators().stream()
                .filter(o -> "blocking".equals(o.phase())
                        && o.failure().exceptionType() != null
                        && o.failure().site() != null)
                .findFirst()
                .orElse(null);
    }

    /** A CUDA failure known only from messages printed outside any traceback: the job caught it. */
    private static boolean caught(CudaFailure f) {
        return f != null && f.withoutTraceback();
    }

    private static String onRank(CudaFailure f) {
        return f != null && f.rank() != null && f.userFrame() != null ? " on rank " + f.rank() : "";
    }

    private static final int MAX_RANK_NOTES = 4;

    private void distributedNotes(CudaFailure f, List<String> notes) {
        if (f == null) {
            return;
        }
        if (f.rank() != null && !f.ranks().isEmpty()) {
            StringBuilder sb = new StringBuilder("Rank ")
                    .append(f.rank())
                    .append(f.ranks().size() > 1 ? " failed first" : " failed")
                    .append(
                            f.frames().isEmpty()
                                    ? " (no Python traceback of it: it printed only CUDA errors)"
                                    : ": its traceback is the one read");
            if (f.ranks().get(0).fromLauncher()) {
                sb.append(" (from the launcher's failure table: the worker's own output was not in this log)");
            }
            sb.append('.');
            List<CudaFailure.RankFailure> others =
                    f.ranks().subList(1, f.ranks().size());
            if (!others.isEmpty()) {
                sb.append(" Then ");
                for (int i = 0; i < Math.min(others.size(), MAX_RANK_NOTES); i++) {
                    CudaFailure.RankFailure r = others.get(i);
                    sb.append(i == 0 ? "" : "; ")
                            .append("rank ")
                            .append(r.rank())
                            .append(": ")
                            .append(r.errorClass().text())
                            .append(r.userFrame() == null ? "" : " at " + show(r.userFrame()));
                }
                if (others.size() > MAX_RANK_NOTES) {
                    sb.append("; ").append(others.size() - MAX_RANK_NOTES).append(" more rank(s)");
                }
                sb.append(" (failures that follow the first are usually its consequences).");
            }
            notes.add(sb.toString());
        }
        CudaFailure.Launcher l = f.launcher();
        if (l != null) {
            String name = "torchrun".equals(l.kind()) ? "torchrun" : "torch.multiprocessing.spawn";
            StringBuilder sb = new StringBuilder("The launcher (")
                    .append(name)
                    .append(") reported ")
                    .append(l.exceptionType() == null ? "the failure" : simpleName(l.exceptionType()))
                    .append(l.userFrame() == null ? "" : " from " + show(l.userFrame()))
                    .append(": its traceback is context, not the fault.");
            if (l.rootCauseRank() != null
                    && f.rank() != null
                    && !l.rootCauseRank().equals(f.rank())) {
                sb.append(" It names rank ")
                        .append(l.rootCauseRank())
                        .append(" as the first failure; rank ")
                        .append(f.rank())
                        .append(
                                " printed its error first (without @record torchrun times failures when it notices them).");
            } else if (f.rank() == null && l.rootCauseRank() != null) {
                sb.append(" It names rank ")
                        .append(l.rootCauseRank())
                        .append(l.detail() == null ? "" : " (" + l.detail() + ")")
                        .append(" as the first failure; no traceback of that rank is in this log.");
            }
            notes.add(sb.toString());
        }
    }

    private static void messageNotes(String phase, CudaFailure f, List<String> notes) {
        if (f == null || f.messages().isEmpty()) {
            return;
        }
        boolean stdout = f.messages().stream().anyMatch(m -> "stdout".equals(m.stream()));
        if (!f.withoutTraceback() && !stdout) {
            return;
        }
        CudaFailure.CudaMessage m = f.withoutTraceback()
                ? f.firstMessage()
                : f.messages().stream()
                        .filter(x -> "stdout".equals(x.stream()))
                        .findFirst()
                        .orElseThrow();
        notes.add("The " + phase + " run printed a CUDA error outside any Python traceback (" + m.stream() + " line "
                + m.line()
                + (m.count() > 1 ? ", " + m.count() + " times" : "")
                + (m.rank() == null ? "" : ", rank " + m.rank())
                + "): `" + shorten(m.text()) + "`. A GPU fault ("
                + m.errorClass().text()
                + ") happened there although no traceback names a line"
                + ("stdout".equals(m.stream()) ? " (the job caught it and printed it)" : "")
                + "; whatever followed (a retry, a hang, an abort) came after that fault.");
    }

    private void compiledNotes(CudaFailure f, List<String> notes) {
        StringBuilder sb = new StringBuilder("The fault is in code torch.compile generated for ")
                .append(show(f.compiledFrame()))
                .append(" (Python shows a compiled function at its def line)");
        if (f.userFrame() != null) {
            sb.append(": the call of the compiled module, ")
                    .append(show(f.userFrame()))
                    .append(", is the launch site");
        }
        sb.append('.');
        if (f.modelLine() != null) {
            sb.append(" Inductor's provenance comments name the model line ")
                    .append(show(f.modelLine()))
                    .append('.');
        }
        notes.add(sb.toString());
        f.assertions().stream()
                .filter(a -> io.jenkins.plugins.gpusanitizer.engine.parse.FrameOrigin.isGeneratedFile(a.file()))
                .findFirst()
                .ifPresent(a -> notes.add("The device assert fired in the Triton kernel Inductor generated ("
                        + io.jenkins.plugins.gpusanitizer.engine.model.Frame.baseName(a.file()) + ":" + a.line()
                        + ", `" + a.condition() + "`), not in the job's own source."));
        if (!f.generatedFiles().isEmpty()) {
            notes.add("Generated code named in the output: " + String.join(", ", f.generatedFiles())
                    + " (copies, when the runner could make them, are in the phase's generated/ folder).");
        }
    }

    private static String simpleName(String type) {
        int dot = type.lastIndexOf('.');
        return dot < 0 ? type : type.substring(dot + 1);
    }

    private static String shorten(String s) {
        return s.length() > 160 ? s.substring(0, 160) + "..." : s;
    }

    /**
     * The probe's evidence: the failing operator joins the summary ("aten::embedding at train.py:23:
     * index max 5000, weight has 5000 rows"), other operators, allocation sites and the probe's own
     * problems become notes.
     */
    private static String probeNotes(ProbeFindings probe, String summary, List<String> notes) {
        ProbeFindings.OperatorEvidence primary = probe.primaryOperator();
        String s = summary;
        if (primary != null) {
            s = ("No fault located.".equals(summary) ? "" : summary + " ") + "Failing operator: " + primary.summary()
                    + ".";
            for (ProbeFindings.OperatorEvidence o : probe.operators()) {
                if (o != primary && notes.size() < 30) {
                    notes.add("Also failing: " + o.summary() + ".");
                }
            }
        }
        if (probe.allocations() != null) {
            if (probe.allocations().oom() != null) {
                notes.add(probe.allocations().oom().summary());
            }
            notes.add(probe.allocations().summary());
        }
        notes.addAll(probe.notes());
        return s;
    }

    private static void memoryNotes(List<MemoryCurve> curves, List<String> notes) {
        for (MemoryCurve c : curves) {
            notes.add("GPU memory (" + c.label() + "): " + c.describe() + ".");
        }
        MemoryCurve plain = curves.stream()
                .filter(c -> "default".equals(c.label()) && c.shape() == MemoryCurve.Shape.STABLE)
                .findFirst()
                .orElse(null);
        MemoryCurve expandable = curves.stream()
                .filter(c -> "expandable_segments".equals(c.label()) && c.shape() == MemoryCurve.Shape.STABLE)
                .findFirst()
                .orElse(null);
        if (plain != null && expandable != null && plain.peakMiB() > 0) {
            double cut = 100.0 * (plain.peakMiB() - expandable.peakMiB()) / plain.peakMiB();
            notes.add(String.format(
                    Locale.ROOT,
                    "expandable_segments %s the peak from %.0f to %.0f MiB (%s%.0f%%).",
                    cut >= 0 ? "cut" : "raised",
                    plain.peakMiB(),
                    expandable.peakMiB(),
                    cut >= 0 ? "-" : "+",
                    Math.abs(cut)));
        }
    }

    /** The defect most worth a user's attention: unsuppressed memcheck access errors first, then asserts, then the rest. */
    static Defect topDefect(List<SanitizerRun> runs) {
        return runs.stream()
                .flatMap(r -> r.unsuppressed().stream())
                .min(Comparator.comparingInt(Diagnoser::rank)
                        .thenComparing(Comparator.comparingLong(Defect::records).reversed()))
                .orElse(null);
    }

    private static int rank(Defect d) {
        if (d.kind().isAccessError()) {
            return d.inVendorLibrary() ? 2 : 0;
        }
        if (d.kind() == Kind.DEVICE_ASSERT) {
            return 1;
        }
        return d.kind() == Kind.API_ERROR ? 4 : 3;
    }

    private String deviceLine(Defect d) {
        return d.deviceLocation() == null ? "" : " " + RuntimeKernels.at(d.deviceLocation(), paths);
    }

    private static boolean isFailure(CudaFailure f) {
        return f.errorClass() != CudaErrorClass.NONE;
    }

    private String show(SourceLocation l) {
        StringBuilder sb = new StringBuilder(paths.name(l.file())).append(':').append(l.line());
        if (l.function() != null && !l.function().equals("<module>")) {
            sb.append(" in ").append(l.function());
        }
        if (l.code() != null) {
            sb.append(" (`")
                    .append(l.code().length() > 80 ? l.code().substring(0, 80) + "..." : l.code())
                    .append("`)");
        }
        return sb.toString();
    }
}
