package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaErrorClass;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.ThroughputJson;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the phases' outcomes say beside their outputs (a phase that timed out, was aborted, never
 * started, exited with an error and printed none, a sanitizer that wrote no log or whose target died
 * with nothing found, a job that saw no GPU), derived only from what {@code run.json} records of each phase and from the run
 * directory. The runner's report and {@code analyze --run-dir} both use this one piece of code, so a
 * re-analysis of a run directory (and the Jenkins build page, which shows the runner's report) gives
 * the verdict the runner gave.
 */
public final class PhaseReasons {
    /** What the supervisor notes when processes of a phase outlived its main process (supervise.sh's linger). */
    static final String OUTLIVED = "outlived its main process";
    /** What the supervisor notes when its sweep could not kill processes of a phase (another user's: sudo). */
    static final String NOT_KILLED = "could not kill ";

    private PhaseReasons() {}

    /**
     * @param record   the run record (run.json), or null when there is none
     * @param dir      the run directory the record describes
     * @param analysis the analysis of the directory's outputs
     */
    public static List<Reason> of(RunRecord record, RunDirectory dir, Analysis analysis) {
        List<Reason> reasons = new ArrayList<>();
        if (record == null || record.execution() == null) {
            return reasons;
        }
        if (!record.finished()) {
            reasons.add(Reason.error(
                    "unfinished",
                    RunLayout.RUN_JSON + " says the run did not finish (the runner died or is still running): "
                            + "phases after the last one recorded did not run"));
        }
        List<PhaseJson> phases = record.execution().phases() == null
                ? List.of()
                : record.execution().phases();
        WorkPaths paths = dir.paths(record);
        for (PhaseJson p : phases) {
            if (p == null || p.name() == null || p.status() == null) {
                reasons.add(Reason.error("phase-record", RunLayout.RUN_JSON + " holds a phase without name or status"));
                continue;
            }
            phase(p, dir, analysis, paths, reasons);
        }
        throughput(record.execution().throughput(), RunDirectory.regressionRanBeside(record), reasons);
        return reasons;
    }

    /** The phase a recorded phase entry is: sanitizer-TOOL, blocking or regression. */
    static Phase phaseOf(PhaseJson p) {
        if (p.tool() != null || p.name().startsWith("sanitizer")) {
            return Phase.SANITIZER;
        }
        return Phase.fromId(p.name()).orElse(null);
    }

    /** One recorded phase: how it ended, then what its kind of phase says about its output. */
    private static void phase(PhaseJson p, RunDirectory dir, Analysis a, WorkPaths paths, List<Reason> reasons) {
        Phase phase = phaseOf(p);
        status(p, phase, a, paths, reasons);
        if (phase == null) {
            reasons.add(
                    Reason.error("phase-record", RunLayout.RUN_JSON + " names an unknown phase '" + p.name() + "'"));
            return;
        }
        String name = p.name();
        if (p.note() != null && p.note().contains(OUTLIVED)) {
            // a launcher that put the job in the background and exited: what ended was not the job
            reasons.add(Reason.error(
                    "outlived-main",
                    name + ": the job's processes outlived its main process and were killed unchecked ("
                            + p.note() + "): its work went on after the command returned (`nohup ... &`, a"
                            + " daemon), so what ran was not judged; run the job in the foreground"));
        }
        notKilled(p, reasons);
        noGpu(p, phase, dir, reasons);
        if (phase == Phase.SANITIZER) {
            sanitizerPhase(p, dir, a, reasons);
        } else if (PhaseResult.FAILED.equals(p.status())) {
            failedJob(p, phase, a, reasons);
        }
    }

    /** How the phase ended when not by itself (timed out, aborted, never started, stopped early), or unknown. */
    private static void status(PhaseJson p, Phase phase, Analysis a, WorkPaths paths, List<Reason> reasons) {
        String name = p.name();
        switch (p.status()) {
            case PhaseResult.TIMED_OUT ->
                reasons.add(Reason.error(
                        "timeout",
                        name + " timed out after " + ProgressLog.seconds(p.wallSeconds())
                                + " s and was killed; its output is partial"
                                + (phase == null || phase == Phase.SANITIZER
                                        ? ""
                                        : faultBeforeHang(
                                                a.failures().get(phase == Phase.BLOCKING ? "blocking" : "async"),
                                                paths))));
            case PhaseResult.ABORTED ->
                reasons.add(Reason.error(
                        "aborted",
                        name + " was aborted after " + ProgressLog.seconds(p.wallSeconds())
                                + " s" + (p.note() == null || p.note().isBlank() ? "" : " (" + p.note() + ")")
                                + "; its output is partial and what it did not reach was not checked"));
            case PhaseResult.NOT_STARTED ->
                reasons.add(Reason.error("not-started", name + " could not start: " + p.note()));
            case PhaseResult.STOPPED_EARLY ->
                reasons.add(
                        phase == Phase.BLOCKING
                                ? Reason.info(
                                        "blocking-cut",
                                        name + " was " + p.note() + ", after " + ProgressLog.seconds(p.wallSeconds())
                                                + " s")
                                : Reason.info(
                                        "stopped-early",
                                        name + " " + p.note() + " after " + ProgressLog.seconds(p.wallSeconds())
                                                + " s: the defects found are complete records, the run was not"));
            case PhaseResult.PASSED, PhaseResult.FAILED, PhaseResult.STOPPED_AT_TARGET -> {}
            default ->
                reasons.add(Reason.error("phase-status", name + " ended with an unknown status '" + p.status() + "'"));
        }
    }

    /** The sanitizer phase: a cached rerun, no log at all, or an exit the tool's findings do not explain. */
    private static void sanitizerPhase(PhaseJson p, RunDirectory dir, Analysis a, List<Reason> reasons) {
        String name = p.name();
        boolean failed = PhaseResult.FAILED.equals(p.status());
        String initcheckFilter = InitcheckKernelFilter.unchecked(name, p.command());
        if (initcheckFilter != null) {
            reasons.add(Reason.info(InitcheckKernelFilter.CODE, initcheckFilter));
        }
        String unchecked = initcheckFilter != null ? null : VendorKernels.unchecked(name, p.command());
        if (unchecked != null) {
            reasons.add(Reason.info("kernel-filter", unchecked));
        }
        String window = LaunchWindow.unchecked(name, p.command());
        if (window != null) {
            reasons.add(Reason.info(LaunchWindow.CODE, window));
        }
        if (RunDirectory.isCachedRerun(name)) {
            reasons.add(Reason.warning(
                    "capture-conflict",
                    "the job captures CUDA graphs, and the sanitizer phase's own PYTORCH_NO_CUDA_MEMORY_CACHING=1 "
                            + "broke the capture (cudaMalloc inside it is not allowed): not a bug in the job. "
                            + p.tool() + " was rerun with the caching allocator kept (" + name
                            + "); the first run is kept as evidence"));
        }
        boolean log = RunDirectory.nonEmpty(dir.dir(name).resolve(RunLayout.SANITIZER_LOG));
        if (!PhaseResult.NOT_STARTED.equals(p.status()) && !log) {
            reasons.add(Reason.error(
                    "no-sanitizer-output",
                    name + ": compute-sanitizer wrote no log (exit " + p.exitCode() + "); see " + name
                            + "/stderr.log"));
        } else if (failed
                && (p.exitCode() == null || p.exitCode() != Runner.SANITIZER_ERROR_EXIT)
                && !explained(p, a)) {
            // the tool passes the target's exit code through when it counted nothing
            reasons.add(Reason.error(
                    "sanitizer-exit",
                    name + " exited with " + p.exitCode()
                            + (p.signal() == null ? "" : " (signal " + p.signal() + ")")
                            + " and compute-sanitizer reported no error: the job failed under the tool, "
                            + "so it was not fully checked; see " + name + "/stderr.log"));
        }
    }

    /** A job phase that exited with an error: it must have printed one, and the blocking run must have blocked. */
    private static void failedJob(PhaseJson p, Phase phase, Analysis a, List<Reason> reasons) {
        String name = p.name();
        CudaFailure f = a.failures().get(phase == Phase.BLOCKING ? "blocking" : "async");
        if (f == null || f.errorClass() == CudaErrorClass.NONE) {
            reasons.add(Reason.error(
                    "exit-without-error",
                    name + " exited with " + p.exitCode()
                            + (p.signal() == null ? "" : " (signal " + p.signal() + ")")
                            + " and printed no recognisable error"));
        }
        if (phase == Phase.BLOCKING && f != null && f.asyncWarning()) {
            reasons.add(Reason.warning(
                    "not-blocking",
                    "the blocking run printed PyTorch's asynchronous-report warning: "
                            + "CUDA_LAUNCH_BLOCKING was not in effect (set before the first CUDA call?)"));
        }
    }

    /**
     * Processes of the phase the sweep could not kill run on after it (on a shared machine: what the job started
     * under sudo, as another user); named by pid, uid and command line in the note.
     */
    private static void notKilled(PhaseJson p, List<Reason> reasons) {
        if (p.note() == null) {
            return;
        }
        for (String part : p.note().split("; ")) {
            if (part.startsWith(NOT_KILLED)) {
                reasons.add(Reason.warning(
                        "not-killed",
                        p.name() + ": " + part + ": they run on after the phase, beyond this user's reach (another"
                                + " user's, as under sudo), and may still use the GPU"));
            }
        }
    }

    /** A phase whose job saw no GPU checked nothing on it, whatever its exit and the tool's count say. */
    private static void noGpu(PhaseJson p, Phase phase, RunDirectory dir, List<Reason> reasons) {
        if (PhaseResult.NOT_STARTED.equals(p.status())) {
            return;
        }
        NoGpuEvidence.Found found = NoGpuEvidence.in(dir.dir(p.name()));
        if (found == null) {
            return;
        }
        String tool = p.tool() != null ? p.tool() : "compute-sanitizer";
        reasons.add(Reason.error(
                "no-gpu",
                p.name() + ": torch could not initialise CUDA (" + found.warning()
                        + ") and the job ran without the GPU: "
                        + (phase == Phase.SANITIZER ? tool + " checked nothing" : "it tested nothing on the GPU")
                        + "; see " + p.name() + "/" + found.file()));
    }

    /**
     * Whether the analysis of a sanitizer phase's output already accounts for its failed exit: a
     * defect it found, or a sign the gate turns into an error itself (a tool failure, a target that
     * returned an error or crashed, no or an unreadable summary).
     */
    private static boolean explained(PhaseJson p, Analysis a) {
        String tool = p.tool() != null ? p.tool() : p.name().substring(p.name().indexOf('-') + 1);
        for (SanitizerRun r : a.runs()) {
            if (!r.tool().id().equals(tool)) {
                continue;
            }
            var out = r.primary();
            if (!r.unsuppressed().isEmpty()
                    || !out.toolFailures().isEmpty()
                    || out.targetReturnedError()
                    || out.appCrashed()
                    || r.text() == null
                    || r.text().errorsTotal() == null) {
                return true;
            }
        }
        return false;
    }

    private static void throughput(ThroughputJson t, boolean beside, List<Reason> reasons) {
        if (t == null) {
            return;
        }
        if (beside && t.baseline() != null && t.measured() != null) {
            reasons.add(Reason.warning(
                    "throughput",
                    String.format(
                            Locale.ROOT,
                            "throughput %.2f (baseline %.2f) not judged: the regression run ran beside the sanitizer"
                                    + " run, on a shared card (--regression-after runs it alone and judges it)",
                            t.measured(),
                            t.baseline())));
            return;
        }
        double tolerance = t.tolerance() == null ? RunSpec.DEFAULT_THROUGHPUT_TOLERANCE : t.tolerance();
        if (t.ratio() != null && t.ratio() < 1 - tolerance) {
            reasons.add(Reason.unstable(
                    "throughput",
                    String.format(
                            Locale.ROOT,
                            "throughput %.2f is %.0f%% below the baseline %.2f",
                            t.measured(),
                            100 * (1 - t.ratio()),
                            t.baseline())));
        } else if (t.measured() == null) {
            reasons.add(Reason.warning("throughput", "the throughput regex matched nothing in the regression output"));
        }
    }

    /** A job that caught a GPU error and then hung: say so, or the timeout reads as a plain hang. */
    static String faultBeforeHang(CudaFailure f, WorkPaths paths) {
        if (f == null || f.errorClass() == CudaErrorClass.NONE || f.errorClass() == CudaErrorClass.NON_CUDA) {
            return "";
        }
        if (!f.messages().isEmpty()) {
            CudaFailure.CudaMessage m = f.firstMessage();
            return "; before that it printed a CUDA error (" + m.stream() + " line " + m.line()
                    + (m.count() > 1 ? ", " + m.count() + " times" : "")
                    + (m.rank() == null ? "" : ", rank " + m.rank())
                    + "): `" + abbreviate(m.text()) + "`: the hang followed a GPU fault ("
                    + f.errorClass().text() + ")";
        }
        return "; before that it failed with " + f.errorClass().text()
                + (f.userFrame() == null ? "" : " at " + paths.at(f.userFrame()))
                + ": the hang followed a GPU fault";
    }

    private static String abbreviate(String s) {
        return s.length() > 200 ? s.substring(0, 200) + "..." : s;
    }
}
