package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.util.List;

/**
 * A section listing defects ("Defects", then "Suppressed defects"): each one line (tool, message, kernel, launch line,
 * records, status) that opens onto its details and its host stack's first frames. Collapsed, without a script, so a
 * page with many defects stays readable.
 */
final class DefectsSection {
    static final int MAX_STACK_SHOWN = 40;

    private DefectsSection() {}

    static void append(StringBuilder h, List<DefectJson> defects, String title) {
        h.append("<section class=\"gs-defects\"><h2>")
                .append(Html.esc(title))
                .append(" (")
                .append(defects.size())
                .append(")</h2>");
        if (defects.isEmpty()) {
            h.append("<p>None.</p>");
        }
        for (DefectJson d : defects) {
            defectSummary(h, d);
            h.append("</summary><dl>");
            defectDetails(h, d);
            h.append("</dl>");
            if (!d.hostStack().isEmpty()) {
                hostStack(h, d.hostStack());
            }
            h.append("</details>\n");
        }
        h.append("</section>\n");
    }

    /** The defect's line: tool, message, kernel, launch line, records, status, vendor library. */
    private static void defectSummary(StringBuilder h, DefectJson d) {
        h.append("<details class=\"gs-defect gs-")
                .append(d.suppressed() ? "suppressed" : Html.esc(d.severity()))
                .append("\"><summary><span class=\"gs-tool\">")
                .append(Html.esc(d.tool()))
                .append("</span> <b>")
                .append(Html.esc(d.message()))
                .append("</b>");
        if (d.kernel() != null) {
            h.append(" in <code class=\"gs-kernel\">")
                    .append(Html.esc(d.kernel()))
                    .append("</code>");
        }
        if (d.hostLocation() != null) {
            h.append(" from <code>")
                    .append(Html.esc(d.hostLocation().file()))
                    .append(':')
                    .append(d.hostLocation().line())
                    .append("</code>");
        }
        h.append(" <span class=\"gs-count\">").append(d.records()).append(" record(s)</span>");
        if (d.status() != null) {
            h.append(" <span class=\"gs-status gs-")
                    .append(Html.esc(d.status()))
                    .append("\">")
                    .append(Html.esc(d.status()))
                    .append("</span>");
        }
        if (d.inVendorLibrary()) {
            h.append(" <span class=\"gs-vendor\">in vendor library ")
                    .append(Html.esc(d.vendorModule()))
                    .append("</span>");
        }
    }

    private static void defectDetails(StringBuilder h, DefectJson d) {
        if (d.suppressedBy() != null) {
            dl(
                    h,
                    "suppressed by",
                    d.suppressedBy().rule() + ": " + d.suppressedBy().reason());
        }
        dl(h, "kind", d.kind());
        dl(h, "launched by", d.launcher());
        if (d.deviceLocation() != null) {
            dl(h, "device line", deviceLine(d.deviceLocation()));
        }
        if (d.hostLocation() != null) {
            dl(
                    h,
                    "first user frame",
                    d.hostLocation().file() + ":" + d.hostLocation().line()
                            + (d.hostLocation().function() == null
                                    ? ""
                                    : " in " + d.hostLocation().function()));
        }
        dl(h, "detail", d.detail());
        dl(h, "buffer", d.buffer() == null ? null : d.buffer().summary());
        dl(h, "examples", String.join("; ", d.examples()));
        dl(h, "fingerprint", d.id());
    }

    /** The host stack's first frames, each marked with its role (user, library, ...). */
    private static void hostStack(StringBuilder h, List<FrameJson> stack) {
        h.append("<ol class=\"gs-stack\">");
        int shown = 0;
        for (FrameJson f : stack) {
            if (shown++ >= MAX_STACK_SHOWN) {
                break;
            }
            h.append("<li class=\"gs-frame-")
                    .append(Html.esc(f.role()))
                    .append("\"><code>")
                    .append(Html.esc(f.function() == null ? "??" : f.function()));
            if (f.file() != null) {
                h.append(" in ").append(Html.esc(f.file())).append(f.line() == null ? "" : ":" + f.line());
            }
            if (f.module() != null) {
                h.append(" [").append(Html.esc(f.module())).append(']');
            }
            h.append("</code></li>");
        }
        h.append("</ol>");
    }

    private static void dl(StringBuilder h, String k, String v) {
        if (v == null || v.isEmpty()) {
            return;
        }
        h.append("<dt>")
                .append(Html.esc(k))
                .append("</dt><dd>")
                .append(Html.esc(v))
                .append("</dd>");
    }

    /** A run-time (CuPy/NVRTC) kernel's cache file is no source line: said as such, with the saved text. */
    private static String deviceLine(LocationJson l) {
        SourceLocation s = new SourceLocation(l.file(), l.line(), l.function(), l.code());
        return RuntimeKernels.isCacheFile(s) ? RuntimeKernels.at(s) : l.file() + ":" + l.line();
    }
}
