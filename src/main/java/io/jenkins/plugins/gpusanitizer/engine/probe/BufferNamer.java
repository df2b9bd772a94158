package io.jenkins.plugins.gpusanitizer.engine.probe;

import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence.Placement;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.util.List;

/**
 * Names the buffer of one invalid access: memcheck's nearest allocation (from the text output) looked up by its
 * first byte in the allocation record. Never guesses: an allocation the record does not have, a size that is not
 * exactly memcheck's plus the run's --padding (the driver counts the guard zone in a range: 6,400 requested,
 * 10,496 recorded under --padding 4096, on the card), a size or a padding not known, or two processes with
 * different allocations at one address leave the buffer unnamed, and the evidence says why. A shape is said only
 * when {@code numel x itemsize} is memcheck's size (a view's shape is not the buffer's). A misaligned access is
 * flagged in live memory: "inside" names the live buffer. Otherwise memcheck says "inside the nearest allocation"
 * of a block it holds freed (it does not flag an aligned access to live memory): where the
 * record (one that holds frees) saw that block freed and no live allocation covers the address, that is a use after
 * free, named with the line that allocated it and the line that freed it (issue #48, 6). The record is read as the
 * job left it, not as it was at the access: a block allocated again at the same address by the same line keeps the
 * line that freed it before.
 */
public final class BufferNamer {
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
        String mismatch = sizeMismatch(a, access);
        if (mismatch != null) {
            return unnamed(access, mismatch);
        }
        String shape = a.shape() != null && a.shapeBytes() == access.size() ? a.shape() : null;
        return switch (access.relation()) {
            case AFTER -> named(Placement.AFTER, access, distance, a, shape, null);
            case BEFORE -> named(Placement.BEFORE, access, distance, a, shape, null);
            case INSIDE -> inside(access, distance, a, shape);
        };
    }

    /** An access inside the recorded allocation: a misaligned one in live memory, else a use after free. */
    private BufferEvidence inside(NearestAllocation access, long distance, AllocationLog.Allocation a, String shape) {
        if (access.misaligned()) {
            // memcheck flags a misaligned access in live memory too (pytorch#144612's 16-byte read in cuSPARSE, on
            // the card): the buffer is the live one the record holds, unless the record saw it freed
            if (log.recordsFrees() && a.freed()) {
                return unnamed(
                        access,
                        "the job freed that allocation (at " + where(a.freedAt(), a.freedCaller())
                                + ") before the access: whether it was live then is not known");
            }
            return named(Placement.INSIDE, access, distance, a, shape, null);
        }
        if (!log.recordsFrees()) {
            return unnamed(
                    access,
                    "memcheck flags an aligned access inside an allocation only once it is freed, and this record (of"
                            + " an older probe) holds no frees: which buffer is not known");
        }
        // memcheck does not flag an in-bounds, aligned access to live memory: its "inside" allocation was freed
        if (!a.freedOnce()) {
            return unnamed(
                    access,
                    "memcheck holds that allocation freed, but the job's record never saw it freed: which buffer"
                            + " is not known");
        }
        AllocationLog.Allocation live = a.freed() ? log.liveCovering(access.addressValue()) : null;
        if (live != null) {
            return unnamed(
                    access,
                    "the job freed that allocation (at " + where(a.freedAt(), a.freedCaller())
                            + ") and a later one, allocated at " + where(live.site(), live.caller())
                            + ", holds the address: which buffer the access meant is not known");
        }
        return named(
                Placement.USE_AFTER_FREE, access, distance, a, shape, innermostInWorkDir(a.freedAt(), a.freedCaller()));
    }

    private BufferEvidence named(
            Placement placement,
            NearestAllocation access,
            long distance,
            AllocationLog.Allocation a,
            String shape,
            SourceLocation freedAt) {
        return new BufferEvidence(
                        placement,
                        access.address(),
                        access.base(),
                        access.size(),
                        distance,
                        site(a),
                        shape,
                        freedAt,
                        null,
                        null)
                .described(paths);
    }

    /** Why the recorded allocation is not proven to be memcheck's, or null when its size is exactly memcheck's. */
    private String sizeMismatch(AllocationLog.Allocation a, NearestAllocation access) {
        if (a.size() <= 0) {
            return "the job's allocation record has no size for it (the probe found no libcuda.so.1): that it is"
                    + " memcheck's allocation is not proven";
        }
        Long padding = log.padding();
        if (padding == null) {
            return "memcheck's --padding for this run is not known (the driver counts it in each recorded size): the"
                    + " recorded " + BufferEvidence.bytes(a.size()) + "-byte allocation cannot be matched exactly";
        }
        if (a.size() != access.size() + padding) {
            return "the job's allocation record has a " + BufferEvidence.bytes(a.size()) + "-byte allocation there"
                    + (padding > 0 ? " (" + BufferEvidence.bytes(padding) + " bytes of it memcheck's --padding)" : "")
                    + ", not memcheck's: which buffer is not known";
        }
        return null;
    }

    private String where(SourceLocation at, SourceLocation caller) {
        SourceLocation s = innermostInWorkDir(at, caller);
        return s == null ? "no Python line recorded" : paths.at(s);
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
        return innermostInWorkDir(a.site(), a.caller());
    }

    private SourceLocation innermostInWorkDir(SourceLocation site, SourceLocation caller) {
        if (site != null
                && paths.relative(site.file()) == null
                && caller != null
                && paths.relative(caller.file()) != null) {
            return caller;
        }
        return site != null ? site : caller;
    }
}
