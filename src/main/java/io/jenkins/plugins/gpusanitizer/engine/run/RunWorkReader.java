package io.jenkins.plugins.gpusanitizer.engine.run;

import io.jenkins.plugins.gpusanitizer.engine.analysis.Analysis;
import io.jenkins.plugins.gpusanitizer.engine.findings.SanitizerRun;
import io.jenkins.plugins.gpusanitizer.engine.gate.RunWork;
import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import io.jenkins.plugins.gpusanitizer.engine.parse.job.CudaFailure;
import io.jenkins.plugins.gpusanitizer.engine.parse.memory.GpuPids;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeParser;
import io.jenkins.plugins.gpusanitizer.engine.report.CoverageReach;
import io.jenkins.plugins.gpusanitizer.engine.report.PhaseJson;
import io.jenkins.plugins.gpusanitizer.engine.report.StateJson;
import io.jenkins.plugins.gpusanitizer.engine.report.WorkJson;
import io.jenkins.plugins.gpusanitizer.engine.run.workspace.WorkspaceManifest;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Reads what each run of the job did ({@link RunWork}) from a run directory, once per analysis: the phase's record,
 * its probe's {@code work} and {@code state} records, nvidia-smi's per-process samples, its workspace manifest, and
 * whether the analysis found the defect it stopped at. The proof of work judges these; the report shows them.
 */
final class RunWorkReader {
    private static final Pattern KILLED = Pattern.compile("leftover process\\(es\\) of the phase killed: (.*)");
    private static final Pattern PID = Pattern.compile("(?:^|, )(\\d+) \\(");

    private RunWorkReader() {}

    /** One run as read: the model the rules judge, and its workspace manifest for the report. */
    record Read(RunWork work, WorkspaceManifest manifest) {}

    static List<Read> read(RunRecord record, RunDirectory dir, Analysis analysis) {
        return read(record, dir, analysis, CoverageReasons.reaches(record, dir, RunDirectory.targetDiedIn(analysis)));
    }

    /** @param reaches each sanitizer run's reach against its coverage decision ({@link CoverageReasons#reaches}) */
    static List<Read> read(
            RunRecord record, RunDirectory dir, Analysis analysis, Map<PhaseJson, CoverageReach> reaches) {
        List<PhaseJson> phases = record == null || record.execution() == null
                ? List.of()
                : record.execution().phases() == null
                        ? List.of()
                        : record.execution().phases();
        boolean throughput = record != null
                && record.execution() != null
                && record.execution().throughput() != null
                && record.execution().throughput().measured() != null;
        List<Read> runs = new ArrayList<>();
        for (PhaseJson p : phases) {
            if (p == null || p.name() == null || p.status() == null || PhaseResult.NOT_STARTED.equals(p.status())) {
                continue;
            }
            Path folder = dir.dir(p.name());
            Path probeFile = folder.resolve(RunLayout.PROBE_JSONL);
            boolean probed = p.environment() != null && p.environment().containsKey(ProbeInstaller.MODE);
            ProbeLog log = Files.isRegularFile(probeFile) ? new ProbeParser().parse(p.name(), probeFile) : null;
            WorkspaceManifest manifest = WorkspaceManifest.read(folder, dir.root());
            GpuPids pids = gpuPids(folder);
            boolean sanitizer = PhaseReasons.phaseOf(p) == Phase.SANITIZER;
            runs.add(new Read(
                    new RunWork(
                            p.name(),
                            sanitizer,
                            p.command(),
                            reaches.containsKey(p) && reaches.get(p).stoppedOnPurpose() ? RunWork.End.STOPPED : end(p),
                            p.wallSeconds(),
                            probe(probed, log),
                            log == null ? 0 : log.processes().size(),
                            log == null ? List.of() : List.copyOf(log.work().values()),
                            log == null ? List.of() : log.state(),
                            gpu(pids),
                            pids == null ? List.of() : List.copyOf(pids.ours()),
                            killedPids(p),
                            stoppedAtDefect(p, sanitizer, analysis),
                            manifest != null,
                            throughput && Phase.REGRESSION.id().equals(p.name()),
                            log == null
                                    ? null
                                    : log.processes().stream()
                                            .map(ProbeLog.Process::startWall)
                                            .filter(java.util.Objects::nonNull)
                                            .min(Double::compare)
                                            .orElse(null)),
                    manifest));
        }
        return runs;
    }

    /**
     * How a run ended. A sanitizer run that ended at its coverage stop, or died under the tool past the stop decided
     * after it ended (issue #49), stopped on purpose, or as good as: its {@link CoverageReach}, taken before this. A
     * job that died after the tool counted errors makes the tool exit with its error code, read here as its end: the
     * rules that judge work stay on for it.
     */
    private static RunWork.End end(PhaseJson p) {
        if (SanitizerPhase.endedByItself(p.status(), p.exitCode())) {
            return RunWork.End.BY_ITSELF;
        }
        return PhaseResult.STOPPED_AT_TARGET.equals(p.status()) || PhaseResult.STOPPED_EARLY.equals(p.status())
                ? RunWork.End.STOPPED
                : RunWork.End.OTHER;
    }

    private static RunWork.Probe probe(boolean probed, ProbeLog log) {
        if (log == null || log.processes().isEmpty() && log.work().isEmpty()) {
            return probed || log != null ? RunWork.Probe.SILENT : RunWork.Probe.OFF;
        }
        return log.work().isEmpty() ? RunWork.Probe.UNCOUNTED : RunWork.Probe.COUNTED;
    }

    /** gpu-pids.txt beside the run (the regression run's sampler), or null when there is none or it is unreadable. */
    private static GpuPids gpuPids(Path folder) {
        Path f = folder.resolve(RunLayout.GPU_PIDS);
        try {
            return Files.isRegularFile(f) ? GpuPids.read(f) : null;
        } catch (InputException e) {
            return null;
        }
    }

    /**
     * Seen when nvidia-smi listed a process of the run; not seen only where its pids are the job's (the host's pid
     * namespace) and the per-process sampler ran to the end; otherwise unknown.
     */
    private static RunWork.Gpu gpu(GpuPids pids) {
        if (pids == null) {
            return RunWork.Gpu.UNKNOWN;
        }
        if (!pids.ours().isEmpty()) {
            return RunWork.Gpu.USED;
        }
        return pids.hostPidNamespace() && pids.appsSamplerExit() == null ? RunWork.Gpu.NOT_SEEN : RunWork.Gpu.UNKNOWN;
    }

    /**
     * The processes the supervisor's sweep killed after the command returned (the phase's {@code killedPids}; in
     * records written before those were kept, the first five its note lists); none when the note says they outlived
     * the main process: that is an error of its own ({@link PhaseReasons}).
     */
    static List<Long> killedPids(PhaseJson p) {
        String note = p.note();
        if (note != null && note.contains(PhaseReasons.OUTLIVED)) {
            return List.of();
        }
        if (p.killedPids() != null) {
            return p.killedPids();
        }
        List<Long> pids = new ArrayList<>();
        Matcher m = note == null ? null : KILLED.matcher(note);
        if (m != null && m.find()) {
            Matcher pid = PID.matcher(m.group(1));
            while (pid.find()) {
                pids.add(Long.parseLong(pid.group(1)));
            }
        }
        return pids;
    }

    /**
     * Whether the run stopped at a defect the report names: its sanitizer found an unsuppressed defect, or its job
     * died of a GPU fault (an illegal access, a device assert). What it did not do after that is no less work.
     */
    private static boolean stoppedAtDefect(PhaseJson p, boolean sanitizer, Analysis analysis) {
        if (analysis == null) {
            return false;
        }
        if (sanitizer) {
            String tool = RunDirectory.toolOf(p.name());
            return analysis.runs().stream()
                    .filter(r -> r.tool().id().equals(tool))
                    .map(SanitizerRun::unsuppressed)
                    .anyMatch(d -> !d.isEmpty());
        }
        String log = Phase.BLOCKING.id().equals(p.name())
                ? "blocking"
                : Phase.REGRESSION.id().equals(p.name()) ? "async" : null;
        CudaFailure f = log == null ? null : analysis.failures().get(log);
        return f != null && RunDirectory.CRASHES.contains(f.errorClass());
    }

    /** The report's section: what each run did. */
    static List<WorkJson> json(List<Read> runs) {
        List<WorkJson> out = new ArrayList<>();
        for (Read read : runs) {
            RunWork r = read.work();
            WorkspaceManifest w = read.manifest();
            out.add(new WorkJson(
                    r.run(),
                    r.counted(),
                    r.processes(),
                    r.counted() ? r.cudaProcesses() : null,
                    r.counted() ? r.steps() : null,
                    r.allocations(),
                    w == null ? null : w.workspace(),
                    w == null ? null : w.changed(),
                    w == null ? null : w.bytesWritten(),
                    w == null ? null : w.file(),
                    r.counted() ? r.backward() : null,
                    r.probe().name().toLowerCase(Locale.ROOT),
                    r.gpu() == RunWork.Gpu.UNKNOWN
                            ? null
                            : r.gpu().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    r.state().stream()
                            .limit(WorkJson.MAX_STATE_SHOWN)
                            .map(s -> new StateJson(s.event(), s.path(), s.where()))
                            .toList(),
                    r.end().name().toLowerCase(Locale.ROOT).replace('_', '-'),
                    r.stoppedAtDefect(),
                    r.counted() ? r.optimizers() : null,
                    r.counted() ? r.optimizerLoads() : null,
                    r.firstWorkSeconds() == null ? null : Math.round(r.firstWorkSeconds() * 10) / 10.0));
        }
        return out;
    }
}
