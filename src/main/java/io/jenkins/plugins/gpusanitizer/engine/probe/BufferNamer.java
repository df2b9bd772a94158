package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence.Placement;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.util.List;

/**
 * Names the buffer of one invalid access: memcheck's nearest allocation (from the text output) looked up by its
 * first byte in the allocation record. Never guesses: an allocation the record does not have, sizes that disagree, or two processes with
 * different allocations at one address leave the buffer unnamed, and the evidence says why.
 */
public final class BufferNamer {
    /**
     * The driver counts memcheck's {@code --padding} guard zone in an allocation's range (the runner pads 4096
     * bytes: 6,400 requested, 10,496 recorded, on the card): a recorded size may exceed memcheck's by that much.
     */
    static final long MAX_PADDING = 1L << 20;

    private final AllocationLog log;
    private final WorkPaths paths;

    public BufferNamer(AllocationLog log, WorkPaths paths) {
        this.log = log;
        this.paths = paths;
    }

    /** The evidence for one access, or null when there is nothing to say (no address, nothing named or recorded). */
    public BufferEvidence name(NearestAllocation access) {
        if (access == null) {
            return null;
        }
        if (!access.named()) {
            // an XML record whose text record was not found: the record alone cannot say which allocation was live
            return null;
        }
        long base = NearestAllocation.hex(access.base());
        Placement placement =
                switch (access.relation()) {
                    case AFTER -> Placement.AFTER;
                    case BEFORE -> Placement.BEFORE;
                    case INSIDE -> Placement.INSIDE;
                };
        long distance = access.relation() == NearestAllocation.Relation.INSIDE
                ? access.addressValue() - base
                : access.distance();
        if (!log.present()) {
            // a run without the record (--no-probe, the caching allocator on, a run of an older release): the
            // defect stays as it was; memcheck's own words are still in its detail
            return null;
        }
        List<AllocationLog.Allocation> found = log.at(base);
        AllocationLog.Allocation a = found.isEmpty() ? null : found.get(0);
        if (a == null) {
            return unnamed(
                    access,
                    "the job's allocation record has none there: not a tensor PyTorch allocated for"
                            + " the job (a library's workspace, CuPy's memory pool, another process's memory)");
        }
        if (found.stream().anyMatch(o -> !same(o, a))) {
            return unnamed(
                    access,
                    "processes of the job recorded different allocations at that address: which one" + " is not known");
        }
        if (a.size() > 0 && (a.size() < access.size() || a.size() - access.size() > MAX_PADDING)) {
            return unnamed(
                    access,
                    "the job's allocation record has a " + a.size() + "-byte allocation there, not"
                            + " memcheck's: which buffer is not known");
        }
        return new BufferEvidence(
                        placement,
                        access.address(),
                        access.base(),
                        access.size(),
                        distance,
                        site(a),
                        a.shape(),
                        null,
                        null)
                .described(paths);
    }

    private BufferEvidence unnamed(NearestAllocation access, String why) {
        String where =
                switch (access.relation()) {
                    case AFTER -> BufferEvidence.count(access.distance()) + " past the end of";
                    case BEFORE -> BufferEvidence.count(access.distance()) + " before the start of";
                    case INSIDE -> "inside";
                };
        return new BufferEvidence(
                        Placement.UNNAMED,
                        access.address(),
                        access.base(),
                        access.size(),
                        access.distance(),
                        null,
                        null,
                        where + " a " + BufferEvidence.bytes(access.size()) + "-byte allocation at " + access.base()
                                + "; " + why,
                        null)
                .described(paths);
    }

    private static boolean same(AllocationLog.Allocation a, AllocationLog.Allocation b) {
        return a.size() == b.size() && java.util.Objects.equals(a.site(), b.site());
    }

    /** The innermost of the two recorded frames under the working directory; else the innermost. */
    private SourceLocation site(AllocationLog.Allocation a) {
        if (a.site() != null
                && paths.relative(a.site().file()) == null
                && a.caller() != null
                && paths.relative(a.caller().file()) != null) {
            return a.caller();
        }
        return a.site() != null ? a.site() : a.caller();
    }
}
