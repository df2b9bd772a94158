package io.jenkins.plugins.gpusanitizer.engine.report;

import java.util.Locale;

/**
 * The report's "In-process probe" section: for each phase, whether the probe ran, what it recorded and what it cost, so
 * that evidence missing from the diagnosis can be told from evidence never collected.
 */
final class ProbeSection {
    private ProbeSection() {}

    static void append(StringBuilder h, ProbeJson p) {
        if (p == null) {
            return;
        }
        h.append("<section class=\"gs-probe\"><h2>In-process probe</h2><table><tr><th>phase</th><th>status</th>"
                + "<th>processes</th><th>records</th><th>probe time</th><th>watched calls / snapshots</th>"
                + "<th>problems</th></tr>");
        for (ProbePhaseJson s : p.phases()) {
            h.append("<tr><td>")
                    .append(Html.esc(s.phase()))
                    .append("</td><td>")
                    .append(Html.esc(s.status()))
                    .append("</td><td>")
                    .append(s.processes())
                    .append("</td><td>")
                    .append(s.records())
                    .append("</td><td>")
                    .append(String.format(Locale.ROOT, "%.3f s", s.probeSeconds()))
                    .append("</td><td>")
                    .append(Html.esc(
                            s.watchedCalls() != null
                                    ? s.watchedCalls() + " calls"
                                    : s.samples() != null ? s.samples() + " snapshots" : ""))
                    .append("</td><td>")
                    .append(Html.esc(String.join("; ", s.errors())))
                    .append("</td></tr>");
        }
        h.append("</table></section>\n");
    }
}
