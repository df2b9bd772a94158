package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import java.util.Set;

/**
 * A phase's own GPU memory, from nvidia-smi's per-process figures ({@link ProcessMemoryCsvParser}).
 *
 * @param job            the sum of the phase's processes in each sampling pass: 0 where nvidia-smi listed none of
 *                       them (before they started, after they ended, beside another process that alone was listed)
 * @param jobPids        the phase's processes listed with a figure
 * @param otherPids      the other processes listed (another phase beside it, another job), up to a bound
 * @param otherPeakMiB   the highest sum of the other processes in one pass
 * @param unknownPids    listed processes the sampler could not check (gone before it did, or not in its file)
 * @param passes         the sampling passes that listed at least one process
 * @param unavailable    rows of the phase's processes without a figure ({@code [N/A]}, {@code [Not Supported]},
 *                       ...): their passes are left out
 * @param badLines       lines that did not parse (a sampler killed mid-line)
 * @param reordered      whether the rows had to be sorted by time
 */
public record ProcessMemory(
        MemorySamples job,
        Set<Long> jobPids,
        Set<Long> otherPids,
        double otherPeakMiB,
        Set<Long> unknownPids,
        long passes,
        long unavailable,
        int badLines,
        boolean reordered) {
    public ProcessMemory {
        jobPids = Set.copyOf(jobPids);
        otherPids = Set.copyOf(otherPids);
        unknownPids = Set.copyOf(unknownPids);
    }
}
