package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.Locale;

/**
 * The "Environment" table at the end of the phases: driver, GPUs, nvcc, torch, compute-sanitizer and what is known of
 * their compatibility, since a defect that one driver or toolkit shows and another does not is read against it.
 */
final class EnvironmentTable {
    private EnvironmentTable() {}

    static void append(StringBuilder h, EnvironmentJson env) {
        h.append("<h3>Environment</h3><table class=\"gs-env\">");
        envRow(h, "driver", env.driverVersion() + " (supports CUDA " + env.driverCudaVersion() + ")");
        for (GpuJson g : env.gpus()) {
            envRow(
                    h,
                    "GPU " + g.index(),
                    g.name()
                            + (g.memoryTotalMiB() == null
                                    ? ""
                                    : String.format(Locale.ROOT, ", %.0f MiB", g.memoryTotalMiB())));
        }
        envRow(h, "nvcc", env.nvccVersion());
        envRow(h, "torch", env.torchVersion() + " (CUDA " + env.torchCuda() + ", cuDNN " + env.cudnnVersion() + ")");
        envRow(
                h,
                "device-side assertions",
                env.torchDsa() == null ? "unknown" : env.torchDsa() ? "built in" : "not built in");
        envRow(h, "compute-sanitizer", env.computeSanitizerVersion());
        envRow(h, "compatibility", env.compatibility());
        for (String m : env.messages()) {
            envRow(h, "", m);
        }
        h.append("</table>");
    }

    private static void envRow(StringBuilder h, String k, String v) {
        h.append("<tr><th>")
                .append(Html.esc(k))
                .append("</th><td>")
                .append(Html.esc(v))
                .append("</td></tr>");
    }
}
