package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * Kernels new since the reference build (issue #49): the plain run's census is stored with each build in its report
 * ({@code coverage[].kernels}), so a changed custom kernel, a new Triton config or a new code path shows as a kernel
 * the reference build's plain run never launched, and whether this build's sanitizer run checked it. Said as info: a
 * new kernel is no defect, but a reviewer wants to know it was checked.
 */
final class ReferenceKernels {
    static final String CODE = "kernels-new";
    private static final int NAMED = 5;

    private ReferenceKernels() {}

    static List<ReasonJson> reasons(Report current, Report reference, String referenceName) {
        List<ReasonJson> reasons = new ArrayList<>();
        if (current.coverage() == null
                || current.coverage().isEmpty()
                || reference.coverage() == null
                || reference.coverage().isEmpty()) {
            return reasons;
        }
        Set<String> known = new LinkedHashSet<>(CoverageJson.kernelNames(reference.coverage()));
        for (CoverageJson c : current.coverage()) {
            List<CoverageJson.Kernel> fresh =
                    c.kernels().stream().filter(k -> !known.contains(k.name())).toList();
            if (fresh.isEmpty()) {
                continue;
            }
            long checked = fresh.stream()
                    .filter(k -> KernelCoverage.isChecked(k.checked()))
                    .count();
            StringBuilder s = new StringBuilder()
                    .append(fresh.size())
                    .append(" kernel(s) the plain run launched that ")
                    .append(referenceName)
                    .append("'s never did: ");
            fresh.stream().limit(NAMED).forEach(k -> s.append(k.name()).append(", "));
            s.setLength(s.length() - 2);
            if (fresh.size() > NAMED) {
                s.append(", and ").append(fresh.size() - NAMED).append(" more");
            }
            s.append("; ").append(c.phase()).append(" checked ").append(checked).append(" of them");
            reasons.add(new ReasonJson("info", CODE, s.toString()));
        }
        return reasons;
    }
}
