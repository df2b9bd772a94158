package io.jenkins.plugins.gpusanitizer.engine.gate;

import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeLog;
import java.util.List;

/**
 * What one run of the job did, as the proof of work ({@link ProofOfWork}) judges it: made once per analysis from the
 * run directory (the runner's {@code RunWorkReader}), from facts, never from a sentence.
 *
 * @param run            the phase's name ({@code sanitizer-memcheck}, {@code blocking}, {@code regression})
 * @param sanitizer      it ran under compute-sanitizer: its argv is the tool's options, then the job's
 * @param command        its argv as recorded
 * @param end            how it ended
 * @param wallSeconds    how long it ran
 * @param probe          what the probe wrote
 * @param processes      processes that imported torch (the probe's first records)
 * @param work           each process's work records
 * @param state          files its processes opened outside its copy of the working directory
 * @param gpu            whether nvidia-smi saw a process of it on the card
 * @param gpuPids        the processes of it nvidia-smi listed
 * @param killedPids     processes of it still running when the command returned, killed with the phase
 * @param stoppedAtDefect it stopped at a defect the report names (a memcheck error, an illegal access, a device
 *                       assert): what it did not do after that is no less work
 * @param isolated       it ran in its own copy of the working directory
 * @param otherEvidence  a sign of work beside the probe's (the throughput regex matched the run's output)
 * @param startWall      the wall clock at which its first Python process started (the probe's first record), or null
 */
public record RunWork(
        String run,
        boolean sanitizer,
        List<String> command,
        End end,
        double wallSeconds,
        Probe probe,
        int processes,
        List<ProbeLog.Work> work,
        List<ProbeLog.StateAccess> state,
        Gpu gpu,
        List<Long> gpuPids,
        List<Long> killedPids,
        boolean stoppedAtDefect,
        boolean isolated,
        boolean otherEvidence,
        Double startWall) {

    public RunWork {
        command = command == null ? List.of() : List.copyOf(command);
        work = List.copyOf(work);
        state = List.copyOf(state);
        gpuPids = List.copyOf(gpuPids);
        killedPids = List.copyOf(killedPids);
    }

    /** How a run ended. */
    public enum End {
        /** It ran the job to its end: passed, or a sanitizer run whose tool exited with its code for what it counted. */
        BY_ITSELF,
        /** The gate stopped it on purpose (at its target, at the print limit, the blocking run cut): not to its end. */
        STOPPED,
        /** Anything else: timed out, aborted, failed; the phase's own reasons say so. */
        OTHER
    }

    /** What the probe wrote for a run. */
    public enum Probe {
        /** Not installed in this run. */
        OFF,
        /** On, and no process wrote a record: none imported torch, or the probe was dropped. */
        SILENT,
        /** Processes recorded, but no work record (a probe older than the proof of work). */
        UNCOUNTED,
        /** The processes' work was counted. */
        COUNTED
    }

    /** What nvidia-smi's per-process samples say of the run. */
    public enum Gpu {
        /** A process of the run was listed on the card. */
        USED,
        /** The samples ran in the host's pid namespace and listed no process of the run. */
        NOT_SEEN,
        /** Not sampled, or the pids cannot be told (a container's namespace). */
        UNKNOWN
    }

    public boolean counted() {
        return probe == Probe.COUNTED;
    }

    public long steps() {
        return work.stream().mapToLong(ProbeLog.Work::steps).sum();
    }

    public long backward() {
        return work.stream().mapToLong(ProbeLog.Work::backward).sum();
    }

    /** Optimizers its processes built: the job trains by its own code. */
    public long optimizers() {
        return work.stream().mapToLong(ProbeLog.Work::optimizers).sum();
    }

    /** Optimizer states its processes loaded: it resumed. */
    public long optimizerLoads() {
        return work.stream().mapToLong(ProbeLog.Work::loads).sum();
    }

    /** Whether it did any of the job's work: an optimizer step or a backward pass in any of its processes. */
    public boolean worked() {
        return work.stream().anyMatch(ProbeLog.Work::worked);
    }

    public long cudaProcesses() {
        return work.stream().filter(ProbeLog.Work::cuda).count();
    }

    /** The caching allocator's allocations at exit, summed; null when no process recorded them. */
    public Long allocations() {
        if (work.stream().allMatch(w -> w.allocations() == null)) {
            return null;
        }
        return work.stream()
                .mapToLong(w -> w.allocations() == null ? 0 : w.allocations())
                .sum();
    }

    /** The files it read outside its copy of the working directory. */
    public List<ProbeLog.StateAccess> stateRead() {
        return state.stream().filter(ProbeLog.StateAccess::read).toList();
    }

    /**
     * Seconds from its first Python process's start to its first optimizer step or backward pass in any of its
     * processes (the probe's wall clock), or null where either is not known: under the tool, where a run's time goes
     * before it checks any step (the DDP tutorial's sanitizer run took 38 s to its first step, its blocking run 15 s).
     */
    public Double firstWorkSeconds() {
        Double first = work.stream()
                .map(ProbeLog.Work::firstWorkAt)
                .filter(java.util.Objects::nonNull)
                .min(Double::compare)
                .orElse(null);
        return first == null || startWall == null ? null : Math.max(0, first - startWall);
    }

    /** What it did, in words: "12 optimizer step(s) and 12 backward pass(es)". */
    public String describeWork() {
        return steps() + " optimizer step(s) and " + backward() + " backward pass(es)";
    }
}
