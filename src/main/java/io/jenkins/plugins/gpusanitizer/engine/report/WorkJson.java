package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * What one run of the job did (issues #40, #47): the proof that it did the job's work, and the workspace it had.
 *
 * @param counted         the probe counted this run's work (false: no torch process, the probe off or dropped,
 *                        an older record); the figures below are then null
 * @param processes       Python processes that imported torch
 * @param cudaProcesses   of those, the ones that created a CUDA context
 * @param optimizerSteps  optimizer steps all of them took
 * @param allocations     the caching allocator's allocations at exit (null with the allocator off: the sanitizer
 *                        run's, or a process killed)
 * @param workspace       the folder it ran in (its copy of the working directory), null when not isolated
 * @param workspaceChanges paths it created, rewrote or removed there
 * @param bytesWritten    bytes of the files it created or rewrote
 * @param manifest        the list of those changes, relative to the run directory
 * @param backwardPasses  backward passes all of them took (hand-written updates take these and no step); null when
 *                        not counted
 * @param probe           {@code off}, {@code silent} (on, wrote nothing), {@code uncounted} (an older probe) or
 *                        {@code counted}; null in reports written before it was kept
 * @param gpuSeen         nvidia-smi's per-process samples: {@code used}, {@code not-seen}, or null when unknown
 * @param stateOutside    files its processes opened outside its copy of the working directory (the first
 *                        {@value #MAX_STATE_SHOWN})
 * @param end             {@code by-itself} (it ran the job to its end), {@code stopped} (by the gate, on purpose)
 *                        or {@code other}; null in reports written before it was kept
 * @param stoppedAtDefect it stopped at a defect the report names: how much work it did is not judged
 * @param firstWorkSeconds seconds from its first Python process's start to its first optimizer step or backward pass
 *                        (the probe's wall clock; to 0.1 s), null where not known: where its time went before any step
 */
public record WorkJson(
        String run,
        boolean counted,
        int processes,
        Long cudaProcesses,
        Long optimizerSteps,
        Long allocations,
        String workspace,
        Long workspaceChanges,
        Long bytesWritten,
        String manifest,
        Long backwardPasses,
        String probe,
        String gpuSeen,
        List<StateJson> stateOutside,
        String end,
        boolean stoppedAtDefect,
        Long optimizersBuilt,
        Long optimizerStatesLoaded,
        Double firstWorkSeconds) {
    public static final int MAX_STATE_SHOWN = 20;

    public WorkJson {
        stateOutside = stateOutside == null ? List.of() : List.copyOf(stateOutside);
    }

    /** Whether it did some of the job's work: an optimizer step or a backward pass (false when not counted). */
    public boolean worked() {
        return counted
                && (optimizerSteps != null && optimizerSteps > 0 || backwardPasses != null && backwardPasses > 0);
    }
}
