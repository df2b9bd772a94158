package io.jenkins.plugins.gpusanitizer.engine.report;

/**
 * The report's "Fixed since the reference" section: the reference report's defects this run no longer has. Only with a
 * reference, so that an empty list says "none fixed", never "not compared".
 */
final class FixedSection {
    private FixedSection() {}

    static void append(StringBuilder h, Report r) {
        if (r.reference() == null) {
            return;
        }
        h.append("<section class=\"gs-fixed\"><h2>Fixed since the reference (")
                .append(r.fixed().size())
                .append(")</h2><p>")
                .append(Html.esc("Reference: " + r.reference()))
                .append("</p><ul>");
        for (DefectJson d : r.fixed()) {
            h.append("<li>")
                    .append(Html.esc(d.tool() + ": " + d.message() + (d.kernel() == null ? "" : " in " + d.kernel())
                            + (d.hostLocation() == null
                                    ? ""
                                    : " at " + d.hostLocation().file() + ":"
                                            + d.hostLocation().line())))
                    .append("</li>");
        }
        h.append("</ul></section>\n");
    }
}
