package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;

/**
 * The report's "Kernels checked" section (issue #49): for each sanitizer run, its coverage sentence and the kernels the
 * plain run launched that it did not check (or cannot be known to have checked), by name, first; then every kernel in
 * a folded table. Kernel names come from the job's binaries: escaped like any tool output.
 */
final class CoverageSection {
    private CoverageSection() {}

    static void append(StringBuilder h, List<CoverageJson> coverage) {
        if (coverage == null || coverage.isEmpty()) {
            return;
        }
        h.append("<section class=\"gs-coverage\"><h2>Kernels checked</h2>");
        for (CoverageJson c : coverage) {
            h.append("<p>").append(Html.esc(c.summary())).append("</p>");
            List<CoverageJson.Kernel> missed = c.kernels().stream()
                    .filter(k -> !KernelCoverage.isChecked(k.checked()))
                    .toList();
            if (!missed.isEmpty()) {
                h.append("<p>Not checked, or not known to be:</p>");
                table(h, missed);
            }
            h.append("<details><summary>all ")
                    .append(c.kernels().size())
                    .append(" kernels of the plain run, by first launch</summary>");
            table(h, c.kernels());
            h.append("</details>");
            for (String p : c.problems()) {
                h.append("<p class=\"gs-note\">").append(Html.esc(p)).append("</p>");
            }
        }
        h.append("</section>\n");
    }

    private static void table(StringBuilder h, List<CoverageJson.Kernel> kernels) {
        h.append("<table><tr><th>kernel (mangled)</th><th>first launch</th><th>launches (plain run)</th>"
                + "<th>checked</th></tr>");
        for (CoverageJson.Kernel k : kernels) {
            h.append("<tr><td><code>")
                    .append(Html.esc(k.name()))
                    .append("</code></td><td>")
                    .append(k.firstLaunch())
                    .append("</td><td>")
                    .append(k.launches() == null ? "not counted" : k.launches().toString())
                    .append("</td><td>")
                    .append(Html.esc(k.checked()))
                    .append("</td></tr>");
        }
        h.append("</table>");
    }
}
