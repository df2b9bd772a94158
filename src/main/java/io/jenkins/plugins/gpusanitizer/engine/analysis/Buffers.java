package io.jenkins.plugins.gpusanitizer.engine.analysis;

import io.jenkins.plugins.gpusanitizer.engine.findings.Defect;
import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import io.jenkins.plugins.gpusanitizer.engine.probe.AllocationLog;
import io.jenkins.plugins.gpusanitizer.engine.probe.BufferNamer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Gives each defect whose first record names an address the buffer it ran past (issue #42). The nearest
 * allocation is in the text output only: a defect grouped from the XML takes it from the text record with the
 * same address. The allocation record ({@code alloc-PID.jsonl} beside the output) is read only when some defect has
 * an address: a clean run never reads it.
 */
final class Buffers {
    private Buffers() {}

    static List<Defect> named(List<Defect> defects, List<Defect> textDefects, Path phaseDir, WorkPaths paths) {
        Map<String, NearestAllocation> fromText = new HashMap<>();
        for (Defect t : textDefects) {
            NearestAllocation.parse(t.detail())
                    .filter(NearestAllocation::named)
                    .ifPresent(n -> fromText.putIfAbsent(n.address(), n));
        }
        List<NearestAllocation> accesses = new ArrayList<>(defects.size());
        boolean any = false;
        for (Defect d : defects) {
            NearestAllocation n = NearestAllocation.parse(d.detail()).orElse(null);
            if (n != null && !n.named()) {
                n = fromText.getOrDefault(n.address(), n);
            }
            accesses.add(n);
            any |= n != null;
        }
        if (!any) {
            return defects;
        }
        BufferNamer namer = new BufferNamer(AllocationLog.read(phaseDir), paths);
        List<Defect> out = new ArrayList<>(defects.size());
        for (int i = 0; i < defects.size(); i++) {
            BufferEvidence b = namer.name(accesses.get(i));
            out.add(b == null ? defects.get(i) : defects.get(i).withBuffer(b));
        }
        return out;
    }
}
