package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * One sanitizer run's kernel coverage in the report (issue #49, {@link KernelCoverage}): the distinct kernels the plain
 * run launched (the blocking run's census), and which of them the run checked.
 *
 * @param census         the phase whose census it is ({@code blocking})
 * @param censusComplete every process of that run reached its exit (else its counts are unknown and later kernels may
 *                       be missing)
 * @param checked        kernels checked in every launch or in their first launches
 * @param notChecked     kernels the run's filters left out (by name, or first launched after its launch window)
 * @param unknown        kernels whose fate the census cannot tell (a filter it cannot replay)
 * @param kernels        each kernel, by first launch (at most {@link KernelCoverage#MAX_KERNELS})
 */
public record CoverageJson(
        String phase,
        String tool,
        String census,
        boolean censusComplete,
        int distinct,
        int checked,
        int notChecked,
        int unknown,
        String summary,
        List<Kernel> kernels,
        List<String> problems) {

    /**
     * One kernel: its mangled name, its first launch in its process (the launches before it), how often the plain run
     * launched it (null where the process did not reach its exit) and {@code checked}: {@code every-launch},
     * {@code first-launches}, {@code not-checked-name-filter}, {@code not-checked-after-window} or {@code unknown}.
     */
    public record Kernel(String name, long firstLaunch, Long launches, String checked) {}

    /**
     * The distinct kernels a report's coverage lists (the plain run's census as stored with the build), in order;
     * empty for a report without coverage: what a later build's kernels are new against (issue #49).
     */
    public static List<String> kernelNames(List<CoverageJson> coverage) {
        return coverage == null
                ? List.of()
                : coverage.stream()
                        .flatMap(c -> c.kernels().stream())
                        .map(Kernel::name)
                        .distinct()
                        .toList();
    }
}
