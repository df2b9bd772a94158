package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;

/**
 * What the probe's outputs say, ready for the diagnosis and the report.
 *
 * @param operators   failing operators with their index arguments, the most telling first
 * @param allocations where live GPU memory was allocated (the regression phase), or null
 * @param phases      the probe's state per phase it was on in
 * @param notes       the probe's own problems, for the diagnosis notes (never the verdict)
 */
public record ProbeFindings(
        List<OperatorEvidence> operators, AllocationGrowth allocations, List<PhaseStatus> phases, List<String> notes) {
    public static final ProbeFindings NONE = new ProbeFindings(List.of(), null, List.of(), List.of());

    public ProbeFindings {
        operators = List.copyOf(operators);
        phases = List.copyOf(phases);
        notes = List.copyOf(notes);
    }

    public boolean isEmpty() {
        return phases.isEmpty() && operators.isEmpty() && allocations == null;
    }

    /** The failing operator worth the summary line: the first with an index out of range, else the first. */
    public OperatorEvidence primaryOperator() {
        return operators.stream()
                .filter(o -> Boolean.TRUE.equals(
                        o.failure().check() == null ? null : o.failure().check().outOfRange()))
                .findFirst()
                .orElse(operators.isEmpty() ? null : operators.get(0));
    }

    /** @param summary e.g. {@code aten::embedding at train.py:23: index max 5000, weight has 5000 rows} */
    public record OperatorEvidence(String phase, ProbeLog.OpFailure failure, String summary) {}

    /**
     * Live bytes per allocation site: at the end (or at the out-of-memory) against after warm-up.
     *
     * @param warmupSeconds     the time of the warm-up sample (seconds since the process started), or null
     * @param endAt             {@code exit}, {@code periodic} (the last sample before the run was stopped) or {@code oom}
     * @param sites             the top sites by live bytes at the end
     * @param series            the top sites' live bytes over time: [seconds, MiB]
     * @param growing           whether the allocator's live bytes grew after warm-up
     * @param summary           one sentence naming the site that grew most (or the biggest when nothing grew)
     * @param oom               where an allocation failed and what filled the card, or null
     */
    public record AllocationGrowth(
            String phase,
            long pid,
            String rank,
            Double warmupSeconds,
            double endSeconds,
            String endAt,
            long allocatedAtWarmup,
            long allocatedAtEnd,
            long reservedAtEnd,
            int samples,
            List<SiteGrowth> sites,
            List<SiteSeries> series,
            boolean growing,
            String summary,
            OomSites oom) {}

    public record SiteGrowth(
            SourceLocation site,
            List<SourceLocation> stack,
            long bytesAtWarmup,
            long blocksAtWarmup,
            long bytesAtEnd,
            long blocksAtEnd) {
        public long growthBytes() {
            return bytesAtEnd - bytesAtWarmup;
        }
    }

    /** @param label {@code file.py:LINE} */
    public record SiteSeries(String label, List<double[]> points) {}

    /**
     * @param site         where the allocation that failed was made
     * @param snapshotFile the pickled allocator snapshot, relative to the run directory, or null
     * @param sites        the top sites by live bytes at that moment
     */
    public record OomSites(
            long pid,
            String rank,
            double t,
            SourceLocation site,
            List<SourceLocation> stack,
            long requestedBytes,
            long deviceFreeBytes,
            String snapshotFile,
            Long snapshotBytes,
            List<SiteGrowth> sites,
            String summary) {}

    /**
     * @param status       {@code recorded}, {@code no-output} (the job never imported torch) or {@code unreadable}
     * @param processes    processes that imported torch
     * @param probeSeconds the probe's own time, summed over the processes that exited normally
     * @param watchedCalls blocking: calls of the watched operators (each paid one reduction and a copy)
     * @param samples      regression: allocator snapshots taken
     * @param errors       the probe's problems (probe-error lines, unreadable lines)
     */
    public record PhaseStatus(
            String phase,
            String file,
            String status,
            int processes,
            long records,
            double probeSeconds,
            Long watchedCalls,
            Long samples,
            List<String> errors) {}
}
