package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The proof of work (issues #40, #47): a clean sanitizer summary over a run that did none of the job's work checked
 * nothing, so a PASS needs evidence that each run did it. Beside {@link RunCompleteness}, the other trust rules; both
 * fail closed. Work is optimizer steps or backward passes (hand-written updates take backward passes and no step).
 *
 * <ul>
 *   <li>{@code no-gpu-work}: the job ran but none of its processes created a CUDA context (a run the gate stopped
 *       before it did any work is not judged);
 *   <li>{@code less-work}: a run that ended by itself did none of the work another run of the same command did, or
 *       under half of it and in under three quarters of its time (a time-budgeted job that steps slower under the
 *       tool in as long a time is no finding); a sanitizer run of a shorter command that did none where the job's
 *       runs did some. A run that stopped at the defect the report names is not judged: it stopped there;
 *   <li>{@code probe-dropped}: the probe was on and wrote nothing in a run, though the job used the GPU there or
 *       imported torch in another run: that run's work is unknown;
 *   <li>{@code no-work}: no run did any work, though the job built its optimizer in them (UNSTABLE): it resumed or
 *       skipped its training;
 *   <li>{@code nothing-ran}: a command that returned while the processes it left were killed with the phase, none of
 *       which imported torch or was seen on the GPU;
 *   <li>{@code detached}: a process that used the GPU was still going when the command returned, and was killed.
 * </ul>
 *
 * Sentences about a cause only with evidence for it: the files a run read outside its copy (the probe's {@code state}
 * records), or the working directory the runs shared. The reference build's runs are weighed where the reference is
 * known (the report's {@code ReferenceWork}).
 */
public final class ProofOfWork {
    /** A run that did less than this share of another run's work did not do the job's work. */
    public static final double FRACTION = 0.5;
    /**
     * ... and, having done some, ended this much sooner than it: it stopped early. A run that did none did none of
     * the training however long it ran (on the card, the sanitizer run that resumed at the end of a torchrun job took
     * 0 steps in 22 s, the blocking run that trained 128 in 11 s). A job that trains for a time budget does fewer steps
     * where it runs slower (under the tool, with launches blocking) in as long a time, and is no finding (on the
     * H200, examples/cudnn_bench.py's sanitizer run took a fraction of the plain run's steps in its 10 s).
     */
    public static final double SOONER = 0.75;
    /** Files named in a sentence; the rest are counted. */
    static final int NAMED_FILES = 3;

    private final List<RunWork> runs;

    public ProofOfWork(List<RunWork> runs) {
        this.runs = List.copyOf(runs);
    }

    public List<Reason> reasons() {
        List<Reason> reasons = new ArrayList<>();
        for (RunWork r : runs) {
            noGpuWork(r, reasons);
            detached(r, reasons);
            nothingRan(r, reasons);
        }
        probeDropped(reasons);
        lessWork(reasons);
        shorterCommand(reasons);
        noneWorked(reasons);
        return reasons;
    }

    private static boolean ended(RunWork r) {
        return r.end() != RunWork.End.OTHER;
    }

    /**
     * A run that went its way without a CUDA context worked on the CPU. A run the gate stopped before it did any work
     * (the blocking run cut while the job was still importing) says nothing about where the job works: no finding.
     */
    private static void noGpuWork(RunWork r, List<Reason> reasons) {
        if (!r.counted() || !ended(r) || r.cudaProcesses() > 0 || r.end() == RunWork.End.STOPPED && !r.worked()) {
            return;
        }
        reasons.add(Reason.error(
                "no-gpu-work",
                r.run() + ": the job ran (" + r.describeWork() + " in "
                        + r.work().size()
                        + " Python process(es)) but none of its processes created a CUDA context: it worked on the"
                        + " CPU" + (r.sanitizer() ? " (CUDA failed to start under the tool?)" : "")
                        + ", so none of its GPU code was checked"));
    }

    private static void detached(RunWork r, List<Reason> reasons) {
        for (long pid : r.killedPids()) {
            ProbeLog.Work w =
                    r.work().stream().filter(x -> x.pid() == pid).findFirst().orElse(null);
            if (w != null && (w.cuda() || w.worked())) {
                reasons.add(Reason.error(
                        "detached",
                        r.run() + ": the command returned while process " + pid + " went on with the job's GPU work ("
                                + w.steps() + " optimizer step(s), " + w.backward()
                                + " backward pass(es) so far); it was killed when the phase ended, so its work was"
                                + " not checked to its end: run the training in the foreground, not started in the"
                                + " background by a launcher that exits"));
                return;
            }
        }
    }

    /** The command returned, what it left behind was killed, and nothing of it touched torch or the GPU. */
    private static void nothingRan(RunWork r, List<Reason> reasons) {
        if (r.end() != RunWork.End.BY_ITSELF
                || r.killedPids().isEmpty()
                || r.gpu() == RunWork.Gpu.USED
                || r.probe() != RunWork.Probe.SILENT) {
            return;
        }
        reasons.add(Reason.error(
                "nothing-ran",
                r.run() + ": nothing of the job ran: the command returned after "
                        + String.format(java.util.Locale.ROOT, "%.1f", r.wallSeconds())
                        + " s and the process(es) it left (" + pids(r.killedPids()) + ") were killed with the phase;"
                        + " no process of it imported torch"
                        + (r.gpu() == RunWork.Gpu.NOT_SEEN
                                ? " and nvidia-smi saw none of its processes on the GPU"
                                : "")
                        + ": run the training in the foreground, not started in the background by a launcher that"
                        + " exits"));
    }

    /**
     * Runs whose probe wrote nothing, though the job used the GPU there or imported torch in another run: the probe
     * was dropped, and what those runs did is unknown. One reason for the job, naming the runs and the evidence.
     */
    private void probeDropped(List<Reason> reasons) {
        List<RunWork> silent = runs.stream()
                .filter(r -> r.probe() == RunWork.Probe.SILENT && r.end() == RunWork.End.BY_ITSELF)
                .toList();
        if (silent.isEmpty()) {
            return;
        }
        List<String> evidence = new ArrayList<>();
        for (RunWork r : silent) {
            if (r.gpu() == RunWork.Gpu.USED) {
                evidence.add("nvidia-smi listed its process(es) " + pids(r.gpuPids()) + " on the GPU in " + r.run());
            }
        }
        for (RunWork r : runs) {
            if (r.processes() > 0) {
                evidence.add(r.run() + "'s probe recorded " + r.processes() + " process(es) that imported torch");
            }
        }
        if (evidence.isEmpty()) {
            return;
        }
        boolean otherwise = silent.stream().allMatch(RunWork::otherEvidence);
        String text = names(silent) + ": the probe was on and wrote nothing, though the job "
                + String.join("; ", evidence)
                + ": the probe was dropped (a reset PYTHONPATH?), so the work of "
                + (silent.size() == 1 ? "this run" : "these runs") + " was not counted"
                + (otherwise
                        ? "; the throughput its output printed is the only sign of its work"
                        : " and nothing shows it was done");
        reasons.add(otherwise ? Reason.warning("probe-dropped", text) : Reason.error("probe-dropped", text));
    }

    /** Among the runs of one command that ended by themselves, one that did none or far less of another's work. */
    private void lessWork(List<Reason> reasons) {
        List<RunWork> ended = runs.stream()
                .filter(r -> r.end() == RunWork.End.BY_ITSELF && r.counted())
                .toList();
        Set<String> said = new LinkedHashSet<>();
        for (RunWork most : ended) {
            if (!most.worked()) {
                continue;
            }
            boolean bySteps = most.steps() > 0;
            for (RunWork r : ended) {
                long did = bySteps ? r.steps() : r.backward();
                long could = bySteps ? most.steps() : most.backward();
                if (r == most
                        || r.stoppedAtDefect()
                        || !sameJob(r, most)
                        || did >= could * FRACTION
                        || (r.worked() && r.wallSeconds() >= most.wallSeconds() * SOONER)
                        || said.contains(r.run())) {
                    continue;
                }
                said.add(r.run());
                String unit = bySteps ? " optimizer step(s)" : " backward pass(es)";
                reasons.add(Reason.error(
                        "less-work",
                        r.run() + " did " + did + unit + " where " + most.run() + " did " + could
                                + " with the same command: it did " + (r.worked() ? "a fraction" : "none")
                                + " of the job's work, and only that much was checked" + cause(r, most)));
            }
        }
    }

    /**
     * Why a run did less than {@code most}: where it read state outside its copy that the run that did the work never
     * read, that is the runs' own overlap (what lies outside the working directory is one for all runs beside each
     * other: what one saved there, the next resumed from), said with what to do; else {@link #cause(RunWork)}.
     */
    static String cause(RunWork r, RunWork most) {
        Set<String> theirs =
                most.stateRead().stream().map(ProbeLog.StateAccess::path).collect(Collectors.toSet());
        List<ProbeLog.StateAccess> only =
                r.stateRead().stream().filter(s -> !theirs.contains(s.path())).toList();
        if (only.isEmpty() || !r.isolated() || !most.isolated()) {
            return cause(r);
        }
        return "; likely cause: state it read from outside its copy of the working directory that " + most.run()
                + ", which did the work, never read: " + files(only) + ". The gate's runs each have a copy"
                + " of the working directory but share everything outside it, so what one run saved there another"
                + " could resume from; keep such state (a checkpoint, a snapshot, an output folder) under the"
                + " working directory";
    }

    /**
     * A sanitizer run of its own, shorter command (sanitizerCommand) is judged against what that command is expected
     * to do: the reference build's sanitizer run of it where there is one (the report's {@code ReferenceWork}); here,
     * only that doing none of the work while the job's own runs did some is never a clean run.
     */
    private void shorterCommand(List<Reason> reasons) {
        List<RunWork> plain = runs.stream().filter(r -> !r.sanitizer()).toList();
        RunWork trained = plain.stream()
                .filter(RunWork::counted)
                .filter(RunWork::worked)
                .findFirst()
                .orElse(null);
        if (trained == null) {
            return;
        }
        for (RunWork r : runs) {
            if (r.sanitizer()
                    && r.counted()
                    && !r.worked()
                    && r.end() == RunWork.End.BY_ITSELF
                    && !r.stoppedAtDefect()
                    && plain.stream().noneMatch(p -> endsWith(r, p))) {
                reasons.add(Reason.error(
                        "less-work",
                        r.run() + " ran a command of its own (sanitizerCommand), not the job's, and did "
                                + r.describeWork() + ", where " + trained.run() + " did " + trained.describeWork()
                                + ": none of the job's training was checked under the tool" + cause(r)));
            }
        }
    }

    /**
     * No run did any work. Where the job built its optimizer (it trains by its own code) the runs resumed or skipped
     * their training, and a clean verdict would say nothing of it: {@code no-work}, UNSTABLE, with what they read from
     * outside their copies. Otherwise (a job that only evaluates builds none) the runs agree with each other, and only
     * the reference build can show they did less than the job does ({@code ReferenceWork}); state read from outside
     * is still said ({@code no-work-seen}).
     */
    private void noneWorked(List<Reason> reasons) {
        List<RunWork> judged = runs.stream()
                .filter(r -> r.counted() && r.end() == RunWork.End.BY_ITSELF && !r.stoppedAtDefect())
                .toList();
        if (judged.isEmpty() || judged.stream().anyMatch(RunWork::worked)) {
            return;
        }
        List<ProbeLog.StateAccess> read = judged.stream()
                .flatMap(r -> r.stateRead().stream())
                .collect(
                        Collectors.toMap(ProbeLog.StateAccess::path, s -> s, (a, b) -> a, java.util.LinkedHashMap::new))
                .values()
                .stream()
                .toList();
        List<RunWork> built = judged.stream().filter(r -> r.optimizers() > 0).toList();
        if (!built.isEmpty()) {
            List<RunWork> loaded =
                    built.stream().filter(r -> r.optimizerLoads() > 0).toList();
            String resumed = loaded.isEmpty()
                    ? ""
                    : loaded.size() == built.size()
                            ? " and loaded its saved state (a resume with nothing left to train?)"
                            : "; " + names(loaded) + " loaded its saved state (a resume with nothing left to train?)";
            reasons.add(Reason.unstable(
                    "no-work",
                    "no run did an optimizer step or a backward pass (" + names(judged) + "), though "
                            + (built.size() == judged.size() ? "each" : names(built)) + " built the job's optimizer"
                            + resumed + ", so none of its training was checked; "
                            + (read.isEmpty()
                                    ? noneReadOutside(judged)
                                    : "state read from outside the copies of the working directory: " + files(read))
                            + ". A build checks training only where the job trains: give it a fresh output folder, or"
                            + " remove what an earlier build left there"));
            return;
        }
        if (read.isEmpty()) {
            return;
        }
        reasons.add(Reason.warning(
                "no-work-seen",
                "no run did an optimizer step or a backward pass (" + names(judged) + "), and they read state from"
                        + " outside their copies of the working directory: " + files(read)
                        + ": if the job trains, it found its work done there; against a reference build whose runs"
                        + " trained (--reference, or the Jenkins reference build) this is an error"));
    }

    /** Where the state of runs that read nothing outside their copies was: in the working directory they started with. */
    private static String noneReadOutside(List<RunWork> judged) {
        if (judged.stream().allMatch(RunWork::isolated)) {
            return "their probes recorded no file read from outside their copies: what made them skip their training"
                    + " was in the working directory itself (a checkpoint an earlier build or stage left there?)";
        }
        return "the runs shared one working directory (isolation is off): a run finds there what the runs before it"
                + " left";
    }

    /** What was seen of why a run did less: the files it read outside its copy, or the directory the runs shared. */
    static String cause(RunWork r) {
        return cause(r.stateRead(), r.isolated());
    }

    /** {@link #cause(RunWork)} from what a report keeps of a run: the files it read outside, whether it had a copy. */
    public static String cause(List<ProbeLog.StateAccess> read, boolean isolated) {
        if (!read.isEmpty()) {
            return "; likely cause: state it read from outside its copy of the working directory: " + files(read);
        }
        if (!isolated) {
            return "; the runs shared one working directory (isolation is off): a run finds there what the runs"
                    + " before it left (a checkpoint it resumes from, a cache, a finished marker)";
        }
        return "; its probe recorded no file read from outside its copy of the working directory";
    }

    /** The first files by where they lie (the temporary folder, the original workspace, home, other), then a count. */
    static String files(List<ProbeLog.StateAccess> read) {
        List<String> order = List.of("tmp", "workspace", "home", "other");
        List<ProbeLog.StateAccess> sorted = read.stream()
                .sorted(java.util.Comparator.comparingInt(s -> {
                    int i = order.indexOf(s.where());
                    return i < 0 ? order.size() : i;
                }))
                .toList();
        String named = sorted.stream()
                .limit(NAMED_FILES)
                .map(s -> s.path() + " (" + s.where() + ")")
                .collect(Collectors.joining(", "));
        return named + (sorted.size() > NAMED_FILES ? " and " + (sorted.size() - NAMED_FILES) + " more" : "");
    }

    /**
     * Whether two runs ran the same job command. A sanitizer run's argv is the tool's options and then the job's:
     * it ran the job of a plain run whose argv its own ends with; two sanitizer runs ran the same job when one plain
     * run's argv ends both (a shorter sanitizerCommand is another job, judged by {@link #shorterCommand}).
     */
    private boolean sameJob(RunWork a, RunWork b) {
        if (!a.sanitizer() && !b.sanitizer()) {
            return a.command().equals(b.command());
        }
        if (a.sanitizer() != b.sanitizer()) {
            return endsWith(a.sanitizer() ? a : b, a.sanitizer() ? b : a);
        }
        return runs.stream().filter(p -> !p.sanitizer()).anyMatch(plain -> endsWith(a, plain) && endsWith(b, plain));
    }

    static boolean endsWith(RunWork tool, RunWork plain) {
        List<String> t = tool.command();
        List<String> j = plain.command();
        return !j.isEmpty()
                && t.size() > j.size()
                && t.subList(t.size() - j.size(), t.size()).equals(j);
    }

    private static String names(List<RunWork> runs) {
        return runs.stream().map(RunWork::run).collect(Collectors.joining(", "));
    }

    private static String pids(List<Long> pids) {
        return pids.stream().map(String::valueOf).collect(Collectors.joining(", "));
    }
}
