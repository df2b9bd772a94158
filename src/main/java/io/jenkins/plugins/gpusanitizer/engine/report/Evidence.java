package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.ArrayList;
import java.util.List;

/**
 * The probe's evidence as the few lines a console, a build log or a build page shows: the failing
 * operators, where an out-of-memory failed and what filled the card, and what made memory grow.
 */
public final class Evidence {
    static final int MAX_OPERATORS = 3;

    private Evidence() {}

    public static List<String> lines(Report r) {
        List<String> out = new ArrayList<>();
        if (r.diagnosis() != null) {
            r.diagnosis().operatorEvidence().stream()
                    .limit(MAX_OPERATORS)
                    .forEach(o -> out.add("failing operator: " + o.summary()));
        }
        AllocationSitesJson a = allocationSites(r);
        if (a != null) {
            if (a.oom() != null) {
                out.add(a.oom().summary());
            }
            if (a.growing()) {
                out.add(a.summary());
            }
        }
        return out;
    }

    /** The allocation sites wherever the report holds them (beside the memory curve, or in the probe section). */
    public static AllocationSitesJson allocationSites(Report r) {
        if (r.memory() != null) {
            for (MemoryJson m : r.memory()) {
                if (m.allocationSites() != null) {
                    return m.allocationSites();
                }
            }
        }
        return r.probe() == null ? null : r.probe().allocationSites();
    }
}
