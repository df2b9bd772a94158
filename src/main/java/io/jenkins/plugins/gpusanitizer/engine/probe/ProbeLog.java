package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;
import java.util.Map;

/**
 * One phase's {@code probe.jsonl}, as written: every process of the job that imported torch appends
 * to it (torchrun ranks, the agent, forks), each line carries its pid.
 *
 * @param phase     {@code blocking} or {@code regression}
 * @param file      the file (as given)
 * @param present   false when the probe was on but wrote nothing (the job never imported torch)
 * @param records   JSON lines read
 * @param badLines  lines that were not JSON objects (a stray write), not counting a last line cut short
 * @param cutLastLine the last line was cut short (a process killed while writing): tolerated
 * @param truncated the file was longer than the bound and its end was not read
 * @param state     files the job's processes opened outside their run's copy of the working directory (the probe's
 *                  {@code state} records), each path once per event, in the order first seen
 * @param census    the blocking run's distinct-kernel counts as they grew, step by step ({@code census} records, issue
 *                  #49)
 * @param coverageStops where the sanitizer run's probe ended the job at the runner's coverage stop ({@code
 *                  coverage-stop} records)
 */
public record ProbeLog(
        String phase,
        String file,
        boolean present,
        List<Process> processes,
        List<OpFailure> failures,
        List<Oom> ooms,
        List<OomSnapshot> snapshots,
        Map<Long, Allocations> allocations,
        List<Exit> exits,
        Map<Long, Work> work,
        List<String> errors,
        long records,
        long badLines,
        boolean cutLastLine,
        boolean truncated,
        List<StateAccess> state,
        List<CensusCount> census,
        List<CoverageStop> coverageStops) {

    public ProbeLog {
        census = List.copyOf(census);
        coverageStops = List.copyOf(coverageStops);
    }

    /**
     * The census's count of distinct kernels (domain and name pairs) in one process when it grew, read at an optimizer
     * step's post hook ({@code hook} "step") or at a backward pass's call ("backward"), with the counts then.
     */
    public record CensusCount(long pid, String hook, long steps, long backward, long distinct) {}

    /**
     * The sanitizer run's probe ended the job at the coverage stop {@code (unit, at)}, its counts then, and whether
     * cuDNN's benchmark mode was on (it picks kernels by timing them: under the tool perhaps others than the census's).
     */
    public record CoverageStop(
            long pid,
            String unit,
            long at,
            long steps,
            long backward,
            boolean synchronizedGpu,
            boolean cudnnBenchmark) {}

    /**
     * What one process did on the GPU (the probe's {@code work} records, issue #40).
     *
     * @param cuda        it created its CUDA context
     * @param steps       optimizer steps it took (torch's global step hook), the highest count recorded
     * @param backward    backward passes it took (hand-written updates take these and no optimizer step), the highest
     *                    count recorded; 0 from a probe that did not count them
     * @param allocations the caching allocator's allocations at its exit; null when not recorded (killed, or the
     *                    allocator off: the sanitizer run's uncached allocations are not counted by torch)
     * @param lastSeen    epoch seconds of its last work record; null when it wrote none with a time
     * @param exited      it wrote its exit record (ended through Python's exit, not killed)
     * @param optimizers  optimizers it built (torch.optim.Optimizer.__init__): it trains by its own code; 0 from a
     *                    probe that did not count them
     * @param loads       optimizer states it loaded (Optimizer.load_state_dict): it resumed
     * @param firstWorkAt the wall clock of its first record with a step or a backward pass (its first progress record,
     *                    written at its first step or pass), null before any or where the record had no time
     */
    public record Work(
            long pid,
            boolean cuda,
            long steps,
            long backward,
            Long allocations,
            Double lastSeen,
            boolean exited,
            long optimizers,
            long loads,
            Double firstWorkAt) {
        /** Whether it did any of the job's work: an optimizer step or a backward pass. */
        public boolean worked() {
            return steps > 0 || backward > 0;
        }

        /** No record yet. */
        static Work none(long pid) {
            return new Work(pid, false, 0, 0, null, null, false, 0, 0, null);
        }

        /** What a later record adds: counts only grow, the allocations are the last recorded. */
        Work merge(Work seen) {
            return new Work(
                    pid,
                    cuda || seen.cuda,
                    Math.max(steps, seen.steps),
                    Math.max(backward, seen.backward),
                    seen.allocations != null ? seen.allocations : allocations,
                    later(lastSeen, seen.lastSeen),
                    exited || seen.exited,
                    Math.max(optimizers, seen.optimizers),
                    Math.max(loads, seen.loads),
                    firstWorkAt != null ? firstWorkAt : seen.worked() ? seen.lastSeen : null);
        }

        private static Double later(Double a, Double b) {
            if (a == null) {
                return b;
            }
            return b == null ? a : Double.valueOf(Math.max(a, b));
        }
    }

    /**
     * A file a process of the job opened outside its run's copy of the working directory (the probe's {@code state}
     * record): what a run may have resumed from, or left for the next.
     *
     * @param event {@code read} or {@code write}
     * @param path  the absolute path
     * @param where {@code tmp}, {@code home}, {@code workspace} (the original working directory, not the copy) or
     *              {@code other}
     */
    public record StateAccess(long pid, String event, String path, String where, Double ts) {
        public boolean read() {
            return "read".equals(event);
        }
    }

    /**
     * A process that imported torch: the probe's first line.
     *
     * @param startWall when the probe started (≈ the process), epoch seconds, or null (older probes)
     * @param utcOffset the local time's offset from UTC there, seconds; 0 when not recorded
     */
    public record Process(
            long pid,
            String rank,
            String mode,
            String torch,
            String python,
            double t,
            Double startWall,
            int utcOffset) {
        /** Seconds since this process's start at a wall-clock time read as nvidia-smi prints it (local as UTC). */
        public Double secondsAtLocalWall(double localWallSeconds) {
            return startWall == null ? null : localWallSeconds - utcOffset - startWall;
        }
    }

    /** A watched operator that raised, with its arguments (blocking mode). */
    public record OpFailure(
            long pid,
            String rank,
            double t,
            String op,
            SourceLocation site,
            List<SourceLocation> stack,
            String exceptionType,
            String message,
            List<TensorArg> args,
            IndexCheck check,
            String probeError) {}

    /** shape, dtype, device of one tensor argument; {@code index} marks the index/label tensor. */
    public record TensorArg(String name, List<Long> shape, String dtype, String device, boolean index) {}

    /**
     * The index tensor against the size it indexes into.
     *
     * @param name       the argument ({@code input} of embedding, {@code target}, {@code index})
     * @param min        its smallest value, or null when it could not be read
     * @param max        its largest value, or null
     * @param size       the size it indexes into (rows, classes, entries along the dimension), or null
     * @param of         the tensor that size belongs to ({@code weight}, {@code input})
     * @param unit       {@code rows}, {@code classes}, {@code entries along dim 1}, {@code elements}
     * @param ignoreIndex the loss's ignore_index (loss operators only)
     * @param outOfRange whether min/max fall outside [0, size); null when unknown
     * @param statsFrom  {@code before the call} (read back from pinned memory) or {@code after the failure}
     */
    public record IndexCheck(
            String name,
            String dtype,
            List<Long> shape,
            Long min,
            Long max,
            Long size,
            String of,
            String unit,
            Long ignoreIndex,
            Boolean outOfRange,
            String statsFrom) {}

    /** The allocator's out-of-memory observer: where the allocation failed. */
    public record Oom(
            long pid,
            String rank,
            double t,
            long requested,
            long deviceFree,
            long deviceAllocated,
            SourceLocation site,
            List<SourceLocation> stack) {}

    /** The pickled allocator snapshot written beside probe.jsonl when the process died of an OOM. */
    public record OomSnapshot(long pid, String file, long bytes, double seconds, Long traceEntriesKept) {}

    /** One process's allocation sites and snapshots reduced to them, in time order. */
    public record Allocations(long pid, String rank, Map<Integer, Site> sites, List<Sample> samples) {}

    /** An allocation site: the innermost user frame of the blocks, and its user callers. */
    public record Site(int id, SourceLocation location, List<SourceLocation> stack) {}

    /**
     * One allocator snapshot reduced to its top sites by live bytes.
     *
     * @param at {@code periodic}, {@code oom} (at the out-of-memory) or {@code exit}
     */
    public record Sample(
            double t, String at, long allocated, long reserved, long blocks, List<SiteBytes> sites, double cost) {}

    public record SiteBytes(int id, long bytes, long blocks) {}

    /** The probe's own cost in a process, written at its normal exit. */
    public record Exit(long pid, double probeSeconds, Long watchedCalls, Long samples) {}
}
