package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.gate.Reason;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeParser;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Proof of work (issue #40): what each run of the job did on the GPU, from the probe's {@code work} records (a CUDA
 * context created, optimizer steps, the allocator's count) and the run's workspace manifest, and the reasons a run
 * that did not do the job's work gives. A clean sanitizer summary over a run that trained nothing checked nothing:
 *
 * <ul>
 *   <li>{@code no-gpu-work}: the job ran but none of its processes created a CUDA context (a CPU fallback when CUDA
 *       fails under the tool);
 *   <li>{@code less-work}: a run that ended by itself took no optimizer step where another run of the same command
 *       took some, or under half its steps and ended in under three quarters of its time (it resumed from state
 *       another run left, or found its work already done; a time-budgeted job that runs slower under the tool takes
 *       fewer steps in as long a time, and is no finding);
 *   <li>{@code detached}: a process that used the GPU was still going when the command returned, and was killed
 *       with the phase (a launcher that starts the training in the background).
 * </ul>
 *
 * Runs whose probe wrote no work records (no torch, the probe off, records from before the probe counted work) are
 * shown as unknown and give no reason: what cannot be seen is said, not guessed. Derived from the run directory alone,
 * so {@code analyze --run-dir} gives the runner's verdict.
 */
final class WorkCheck {
    /** A run that did less than this share of another run's steps did not do the job's work. */
    static final double FRACTION = 0.5;
    /**
     * ... and, having taken some, ended this much sooner than it: it stopped early. A run that took none did none of
     * the training however long it ran (on the card, the sanitizer run that resumed at the end of a torchrun job took
     * 0 steps in 22 s, the blocking run that trained 128 in 11 s). A job that trains for a time budget does fewer steps
     * where it runs slower (under the tool, with launches blocking) in as long a time, and is no finding (on the
     * H200, examples/cudnn_bench.py's sanitizer run took a fraction of the plain run's steps in its 10 s).
     */
    static final double SOONER = 0.75;

    private static final Pattern KILLED = Pattern.compile("leftover process\\(es\\) of the phase killed: (.*)");
    private static final Pattern PID = Pattern.compile("(?:^|, )(\\d+) \\(");

    private final List<RunWork> runs;
    private final boolean isolated;

    private WorkCheck(List<RunWork> runs) {
        this.runs = List.copyOf(runs);
        // a run with a workspace manifest ran in a copy of its own: state another run left was elsewhere
        this.isolated = runs.stream().anyMatch(r -> r.workspace() != null);
    }

    /** One run: its record, what its probe saw, its workspace manifest. */
    record RunWork(Report.PhaseJson phase, ProbeLog log, WorkspaceManifest workspace) {
        boolean counted() {
            return log != null && !log.work().isEmpty();
        }

        long steps() {
            return log == null
                    ? 0
                    : log.work().values().stream()
                            .mapToLong(ProbeLog.Work::steps)
                            .sum();
        }

        long cudaProcesses() {
            return log == null
                    ? 0
                    : log.work().values().stream().filter(ProbeLog.Work::cuda).count();
        }

        Long allocations() {
            if (log == null || log.work().values().stream().allMatch(w -> w.allocations() == null)) {
                return null;
            }
            return log.work().values().stream()
                    .mapToLong(w -> w.allocations() == null ? 0 : w.allocations())
                    .sum();
        }

        /**
         * It ran the job to its end: passed, or a sanitizer run whose job ended and whose tool then exited with its
         * error code for what it counted (the report calls a run whose records were all suppressed passed).
         */
        boolean endedByItself() {
            return PhaseResult.PASSED.equals(phase.status())
                    || PhaseResult.FAILED.equals(phase.status())
                            && phase.exitCode() != null
                            && phase.exitCode() == SanitizerPhase.ERROR_EXIT;
        }

        boolean probed() {
            return phase.environment() != null && phase.environment().containsKey(ProbeInstaller.MODE);
        }
    }

    static WorkCheck of(RunRecord record, RunDirectory dir) {
        List<Report.PhaseJson> phases = record == null || record.execution() == null
                ? List.of()
                : record.execution().phases() == null
                        ? List.of()
                        : record.execution().phases();
        List<RunWork> runs = new ArrayList<>();
        for (Report.PhaseJson p : phases) {
            if (p == null || p.name() == null || p.status() == null || PhaseResult.NOT_STARTED.equals(p.status())) {
                continue;
            }
            Path folder = dir.dir(p.name());
            Path probe = folder.resolve(RunLayout.PROBE_JSONL);
            ProbeLog log = Files.isRegularFile(probe) ? new ProbeParser().parse(p.name(), probe) : null;
            runs.add(new RunWork(p, log, WorkspaceManifest.read(folder, dir.root())));
        }
        return new WorkCheck(runs);
    }

    List<RunWork> runs() {
        return runs;
    }

    List<Reason> reasons() {
        List<Reason> reasons = new ArrayList<>();
        for (RunWork r : runs) {
            noGpu(r, reasons);
            detached(r, reasons);
        }
        lessWork(reasons);
        return reasons;
    }

    private static void noGpu(RunWork r, List<Reason> reasons) {
        boolean ended = r.endedByItself()
                || PhaseResult.STOPPED_AT_TARGET.equals(r.phase().status())
                || PhaseResult.STOPPED_EARLY.equals(r.phase().status());
        if (!r.counted() || !ended || r.cudaProcesses() > 0) {
            return;
        }
        String name = r.phase().name();
        reasons.add(Reason.error(
                "no-gpu-work",
                name + ": the job ran (" + r.steps() + " optimizer step(s) in "
                        + r.log().work().size()
                        + " Python process(es)) but none of its processes created a CUDA context: it worked on the"
                        + " CPU" + (name.startsWith("sanitizer") ? " (CUDA failed to start under the tool?)" : "")
                        + ", so none of its GPU code was checked"));
    }

    private static void detached(RunWork r, List<Reason> reasons) {
        String note = r.phase().note();
        if (note == null || note.contains(PhaseReasons.OUTLIVED) || r.log() == null) {
            return; // the outlived note is an error of its own (PhaseReasons)
        }
        Matcher m = KILLED.matcher(note);
        if (!m.find()) {
            return;
        }
        Matcher pids = PID.matcher(m.group(1));
        while (pids.find()) {
            ProbeLog.Work w = r.log().work().get(Long.parseLong(pids.group(1)));
            if (w != null && (w.cuda() || w.steps() > 0)) {
                reasons.add(Reason.error(
                        "detached",
                        r.phase().name() + ": the command returned while process " + w.pid() + " went on with the"
                                + " job's GPU work (" + w.steps() + " optimizer step(s) so far); it was killed when"
                                + " the phase ended, so its work was not checked to its end: run the training in the"
                                + " foreground, not started in the background by a launcher that exits"));
                return;
            }
        }
    }

    /** Among the runs of one command that ended by themselves, one that did far fewer steps than another. */
    private void lessWork(List<Reason> reasons) {
        List<RunWork> ended = runs.stream()
                .filter(RunWork::endedByItself)
                .filter(r -> r.counted() || r.probed())
                .toList();
        Set<String> said = new java.util.HashSet<>();
        for (RunWork most : ended) {
            if (!most.counted() || most.steps() == 0) {
                continue;
            }
            for (RunWork r : ended) {
                if (r == most
                        || !sameJob(r.phase(), most.phase())
                        || r.steps() >= most.steps() * FRACTION
                        || (r.steps() > 0
                                && r.phase().wallSeconds() >= most.phase().wallSeconds() * SOONER)
                        || !said.add(r.phase().name())) {
                    continue;
                }
                reasons.add(Reason.error(
                        "less-work",
                        r.phase().name() + " did " + r.steps() + " optimizer step(s) where "
                                + most.phase().name()
                                + " did " + most.steps() + " with the same command: it did a fraction of the job's"
                                + " work, and only that much was checked; likely cause: state another run left "
                                + (isolated
                                        ? "outside the working directory, which each run gets a fresh copy of (a"
                                                + " checkpoint or cache under an absolute path, ~/.cache, /tmp)"
                                        : "in the working directory the runs share (isolation is off): a checkpoint"
                                                + " it resumed from, a cache, a finished marker")));
            }
        }
    }

    /**
     * Whether two runs ran the same job command. A sanitizer run's argv is the tool's options and then the job's:
     * it ran the job of a plain run whose argv its own ends with; two sanitizer runs ran the same job when one plain
     * run's argv ends both (a shorter sanitizerCommand is another job, never compared).
     */
    private boolean sameJob(Report.PhaseJson a, Report.PhaseJson b) {
        if (!isTool(a) && !isTool(b)) {
            return a.command().equals(b.command());
        }
        if (isTool(a) != isTool(b)) {
            return endsWith(isTool(a) ? a : b, isTool(a) ? b : a);
        }
        return runs.stream()
                .map(RunWork::phase)
                .filter(p -> !isTool(p))
                .anyMatch(plain -> endsWith(a, plain) && endsWith(b, plain));
    }

    private static boolean endsWith(Report.PhaseJson tool, Report.PhaseJson plain) {
        List<String> t = tool.command();
        List<String> j = plain.command();
        return t != null
                && j != null
                && !j.isEmpty()
                && t.size() > j.size()
                && t.subList(t.size() - j.size(), t.size()).equals(j);
    }

    private static boolean isTool(Report.PhaseJson p) {
        return p.tool() != null || p.name().startsWith("sanitizer");
    }

    /** The report's section: what each run did. */
    List<Report.WorkJson> json() {
        List<Report.WorkJson> out = new ArrayList<>();
        for (RunWork r : runs) {
            WorkspaceManifest w = r.workspace();
            out.add(new Report.WorkJson(
                    r.phase().name(),
                    r.counted(),
                    r.log() == null ? 0 : r.log().processes().size(),
                    r.counted() ? r.cudaProcesses() : null,
                    r.counted() ? r.steps() : null,
                    r.allocations(),
                    w == null ? null : w.workspace(),
                    w == null ? null : w.changed(),
                    w == null ? null : w.bytesWritten(),
                    w == null ? null : w.file()));
        }
        return out;
    }
}
