package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.List;
import java.util.Locale;

/**
 * The report's "What each run did" table (issue #40): side by side, each run's GPU work as the probe counted it and
 * what it changed in its own copy of the working directory, with a link to the list of those changes. A reader sees
 * at once whether the three runs did the same work. The link goes under {@code rawBase}; with none (null), no link.
 */
final class WorkSection {
    private WorkSection() {}

    static void append(StringBuilder h, List<WorkJson> work, String rawBase) {
        if (work == null || work.isEmpty()) {
            return;
        }
        h.append("<section class=\"gs-work\"><h2>What each run did</h2><table><tr><th>run</th>"
                + "<th>processes with a CUDA context</th><th>optimizer steps</th><th>backward passes</th>"
                + "<th>allocations</th><th>first step after</th><th>its workspace</th><th>changed there</th>"
                + "<th>opened outside it</th></tr>");
        for (WorkJson w : work) {
            h.append("<tr><td>").append(Html.esc(w.run())).append("</td>");
            if (w.counted()) {
                h.append("<td>")
                        .append(w.cudaProcesses())
                        .append(" of ")
                        .append(w.processes())
                        .append("</td><td>")
                        .append(w.optimizerSteps())
                        .append(Html.esc(optimizers(w)))
                        .append("</td><td>")
                        .append(
                                w.backwardPasses() == null
                                        ? "not counted"
                                        : w.backwardPasses().toString())
                        .append("</td><td>")
                        .append(
                                w.allocations() == null
                                        ? "not counted"
                                        : w.allocations().toString())
                        .append("</td><td>")
                        .append(
                                w.firstWorkSeconds() == null
                                        ? "not known"
                                        : String.format(Locale.ROOT, "%.1f s", w.firstWorkSeconds()))
                        .append("</td>");
            } else {
                h.append("<td colspan=\"5\">").append(Html.esc(notCounted(w))).append("</td>");
            }
            h.append("<td><code>")
                    .append(Html.esc(w.workspace() == null ? "the working directory itself" : w.workspace()))
                    .append("</code></td><td>");
            if (w.workspaceChanges() != null) {
                h.append(Html.esc(String.format(
                        Locale.ROOT,
                        "%d path(s), %.1f MiB written",
                        w.workspaceChanges(),
                        w.bytesWritten() == null ? 0.0 : w.bytesWritten() / (1024.0 * 1024.0))));
            }
            if (rawBase != null
                    && w.manifest() != null
                    && !w.manifest().startsWith("/")
                    && !w.manifest().contains("..")) {
                h.append(" <a href=\"")
                        .append(Html.esc(rawBase + HtmlReport.urlPath(w.manifest())))
                        .append("\">list</a>");
            }
            h.append("</td><td>");
            state(h, w.stateOutside());
            h.append("</td></tr>");
        }
        h.append("</table></section>\n");
    }

    /** " (2 optimizers built, 2 states loaded)": a run that built its optimizer and took no step resumed. */
    static String optimizers(WorkJson w) {
        if (w.optimizersBuilt() == null || w.optimizersBuilt() == 0) {
            return "";
        }
        long loaded = w.optimizerStatesLoaded() == null ? 0 : w.optimizerStatesLoaded();
        return " (" + w.optimizersBuilt() + " optimizer(s) built"
                + (loaded > 0 ? ", " + loaded + " state(s) loaded" : "") + ")";
    }

    /** Why a run's work was not counted, from what was seen: never a cause the run directory does not show. */
    static String notCounted(WorkJson w) {
        if (w.probe() == null) {
            return "not counted (no process imported torch, or the probe was off)";
        }
        return switch (w.probe()) {
            case "off" -> "not counted: the probe was off";
            case "uncounted" -> "not counted: a probe older than the count of work";
            case "silent" ->
                "used".equals(w.gpuSeen())
                        ? "not counted: the probe wrote nothing though a process of the run used the GPU: the probe"
                                + " was dropped (a reset PYTHONPATH?)"
                        : "not-seen".equals(w.gpuSeen())
                                ? "nothing counted: no process imported torch, and nvidia-smi saw none on the GPU"
                                : "not counted: the probe wrote nothing (no process imported torch, or the probe was"
                                        + " dropped)";
            default -> "not counted";
        };
    }

    /** The files the run opened outside its copy, the reads first. */
    private static void state(StringBuilder h, List<StateJson> state) {
        if (state.isEmpty()) {
            return;
        }
        h.append("<ul>");
        state.stream()
                .sorted(java.util.Comparator.comparing(s -> !"read".equals(s.event())))
                .forEach(s -> h.append("<li>")
                        .append(Html.esc(s.event()))
                        .append(" <code>")
                        .append(Html.esc(s.path()))
                        .append("</code> (")
                        .append(Html.esc(s.where()))
                        .append(")</li>"));
        h.append("</ul>");
    }
}
