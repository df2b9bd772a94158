package io.jenkins.plugins.gpusanitizer.engine.report;

import io.jenkins.plugins.gpusanitizer.engine.findings.RuntimeKernels;
import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeEvidence;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * Renders the report as an HTML fragment (shared by the CLI page and the Jenkins build page) and as
 * a standalone page with its stylesheet next to it. No script, no event attributes (Jenkins' Content-Security-Policy); every
 * string from a tool or log goes through {@link Html#esc}. Styles live in report.css.
 */
public final class HtmlReport {
    static final int MAX_STACK_SHOWN = 40;
    static final int MAX_BUFFERS_SHOWN = 5;

    public static String css() {
        try (InputStream in =
                io.jenkins.plugins.gpusanitizer.engine.model.BundledResources.open(HtmlReport.class, "report.css")) {
            return in == null ? "" : new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private final String rawBase;

    /** For a page that lives in the run directory: raw outputs are linked relative to it. */
    public HtmlReport() {
        this("");
    }

    /** @param rawBase the URL prefix of the run directory's files ({@code raw/} on the Jenkins build page) */
    public HtmlReport(String rawBase) {
        this.rawBase = rawBase;
    }

    /** The stylesheet of a page called report.html (the run directory's, the build page's raw/ copy). */
    public static final String CSS_FILE = "report.css";

    /**
     * A standalone page. Its styles are in {@link #CSS_FILE} next to it, not inline: Jenkins serves a run
     * directory (the build's {@code raw/} pages) with the strict Content-Security-Policy of its directory
     * browser, {@code style-src 'self'}, which refuses inline styles. Its own policy forbids every script,
     * so even a string that escaped escaping could not run.
     */
    public String page(Report r) {
        return page(r, CSS_FILE);
    }

    /** A standalone page whose stylesheet is {@code cssName}, in the same folder. */
    public String page(Report r, String cssName) {
        return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'self'; img-src data:\">"
                + "<title>GPU Sanitizer: " + Html.esc(r.verdict().name())
                + "</title>\n<link rel=\"stylesheet\" href=\"" + Html.esc(hrefOf(cssName)) + "\"></head>\n<body>\n"
                + fragment(r)
                + "\n</body></html>\n";
    }

    /**
     * The stylesheet of a page: named after it, beside it ({@code site/index.html}: {@code site/index.css};
     * {@code report.html}: {@code report.css}), so that a page never replaces another file's stylesheet.
     */
    public static Path stylesheetOf(Path html) {
        Path page = html.toAbsolutePath();
        String name = String.valueOf(page.getFileName()); // a file path: never the root
        String lower = name.toLowerCase(Locale.ROOT);
        String stem = lower.endsWith(".html")
                ? name.substring(0, name.length() - 5)
                : lower.endsWith(".htm") ? name.substring(0, name.length() - 4) : name;
        return page.resolveSibling(stem + ".css");
    }

    /**
     * Refuses to replace a file at the page's stylesheet path that gpu-sanitize did not write (a site's own
     * {@code index.css}): one line naming it. A stylesheet of an earlier report is replaced.
     *
     * @throws FileSystemException naming the file
     */
    public static void checkStylesheet(Path html) throws FileSystemException {
        Path css = stylesheetOf(html);
        OutputFile.check(css);
        if (java.nio.file.Files.isRegularFile(css, java.nio.file.LinkOption.NOFOLLOW_LINKS) && !ours(css)) {
            throw new FileSystemException(
                    css.toString(),
                    null,
                    "exists and is not a gpu-sanitize stylesheet: refusing to replace it with the page's "
                            + "styles (name the page differently, or move the file)");
        }
    }

    private static boolean ours(Path css) {
        try (InputStream in = java.nio.file.Files.newInputStream(css)) {
            String head = new String(in.readNBytes(4096), StandardCharsets.UTF_8);
            return head.isBlank() || head.contains(".gs-report");
        } catch (IOException e) {
            return false;
        }
    }

    private static String hrefOf(String cssName) {
        StringBuilder href = new StringBuilder();
        for (byte b : cssName.getBytes(StandardCharsets.UTF_8)) {
            char c = (char) (b & 0xff);
            if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || "._-~".indexOf(c) >= 0) {
                href.append(c);
            } else {
                href.append('%').append(String.format(Locale.ROOT, "%02X", b & 0xff));
            }
        }
        return href.toString();
    }

    /**
     * Writes {@link #page} to {@code html} and its stylesheet ({@link #stylesheetOf}) next to it.
     *
     * @throws FileSystemException naming the stylesheet when a file there is not one of gpu-sanitize's
     */
    public void writePage(Report r, Path html) throws IOException {
        Path css = stylesheetOf(html);
        checkStylesheet(html);
        // through OutputFile: never through a planted symlink, never a half-written page
        OutputFile.writeString(html, page(r, String.valueOf(css.getFileName())));
        OutputFile.writeString(css, css());
    }

    public String fragment(Report report) {
        Report r = ShownPaths.of(report); // files named as the sentences name them; the JSON keeps full paths
        StringBuilder h = new StringBuilder(16 * 1024);
        String v = r.verdict().name().toLowerCase(Locale.ROOT);
        h.append("<div class=\"gs-report\">\n");
        h.append("<div class=\"gs-verdict gs-")
                .append(Html.esc(v))
                .append("\"><span class=\"gs-verdict-word\">")
                .append(Html.esc(r.verdict().name()))
                .append("</span>");
        if (r.errorsTotal() != null) {
            h.append(" <span class=\"gs-total\">").append(r.errorsTotal()).append(" sanitizer error(s) counted</span>");
        }
        h.append("<ul class=\"gs-reasons\">");
        for (Report.ReasonJson reason : r.reasons()) {
            h.append("<li class=\"gs-reason gs-")
                    .append(Html.esc(reason.level()))
                    .append("\"><span class=\"gs-level\">")
                    .append(Html.esc(reason.level()))
                    .append("</span> ")
                    .append(Html.esc(reason.message()))
                    .append("</li>");
        }
        h.append("</ul></div>\n");
        diagnosis(h, r.diagnosis(), r.defects());
        if (r.execution() != null) {
            execution(h, r.execution(), r.sanitizerRuns());
        }
        WorkSection.append(h, r.work(), rawBase);
        defects(h, r.defects().stream().filter(d -> !d.suppressed()).toList(), "Defects");
        List<Report.DefectJson> suppressed =
                r.defects().stream().filter(Report.DefectJson::suppressed).toList();
        if (!suppressed.isEmpty()) {
            defects(h, suppressed, "Suppressed defects");
        }
        if (r.reference() != null) {
            h.append("<section class=\"gs-fixed\"><h2>Fixed since the reference (")
                    .append(r.fixed().size())
                    .append(")</h2><p>")
                    .append(Html.esc("Reference: " + r.reference()))
                    .append("</p><ul>");
            for (Report.DefectJson d : r.fixed()) {
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
        failures(h, r.failures());
        memory(
                h,
                r.memory(),
                r.execution() == null ? null : r.execution().regressionTargetSeconds(),
                r.probe() == null ? null : r.probe().allocationSites());
        probe(h, r.probe());
        sanitizerRuns(h, r.sanitizerRuns());
        h.append("<p class=\"gs-footer\">")
                .append(Html.esc(r.generator()))
                .append(", report schema ")
                .append(r.schemaVersion())
                .append("</p>\n</div>");
        return h.toString();
    }

    private static void diagnosis(StringBuilder h, Report.DiagnosisJson d, List<Report.DefectJson> defects) {
        if (d == null) {
            return;
        }
        h.append("<section class=\"gs-diagnosis\"><h2>Where the fault is</h2><p class=\"gs-summary\">")
                .append(Html.esc(d.summary()))
                .append("</p>");
        if (d.reportedAt() != null || d.faultAt() != null) {
            h.append("<table class=\"gs-where\"><tr><th></th><th>line</th><th>code</th></tr>");
            whereRow(h, "reported at (normal run)", d.reportedAt(), "gs-innocent");
            whereRow(
                    h,
                    "really at (" + (d.faultEvidence() == null ? "?" : d.faultEvidence()) + ")",
                    d.faultAt(),
                    "gs-fault");
            h.append("</table>");
        }
        if (!d.notes().isEmpty()) {
            h.append("<ul class=\"gs-notes\">");
            for (String n : d.notes()) {
                h.append("<li>").append(Html.esc(n)).append("</li>");
            }
            h.append("</ul>");
        }
        for (Report.OperatorEvidenceJson o : d.operatorEvidence()) {
            operator(h, o);
        }
        buffers(h, defects);
        h.append("</section>\n");
    }

    /** The buffers the open defects' accesses ran past (issue #42), each one line under the diagnosis. */
    private static void buffers(StringBuilder h, List<Report.DefectJson> defects) {
        defects.stream()
                .filter(x -> !x.suppressed() && x.buffer() != null && x.buffer().summary() != null)
                .limit(MAX_BUFFERS_SHOWN)
                .forEach(x -> h.append("<p class=\"gs-evidence-line gs-buffer\">")
                        .append(x.kernel() == null ? "" : "<code>" + Html.esc(x.kernel()) + "</code>: ")
                        .append(Html.esc(x.buffer().summary()))
                        .append("</p>"));
    }

    /** The failing operator the probe caught: its line, its tensor arguments, the index against its bound. */
    private static void operator(StringBuilder h, Report.OperatorEvidenceJson o) {
        h.append("<div class=\"gs-evidence\"><p class=\"gs-evidence-line\">")
                .append(Html.esc(o.summary()))
                .append("</p>");
        if (o.site() != null) {
            h.append("<p><code>")
                    .append(Html.esc(o.site().file()))
                    .append(':')
                    .append(o.site().line());
            if (o.site().function() != null) {
                h.append(" in ").append(Html.esc(o.site().function()));
            }
            h.append("</code>");
            if (o.site().code() != null) {
                h.append(": <code>").append(Html.esc(o.site().code())).append("</code>");
            }
            for (Report.LocationJson c : o.stack()) {
                h.append("<br>called from <code>")
                        .append(Html.esc(c.file()))
                        .append(':')
                        .append(c.line())
                        .append(c.function() == null ? "" : " in " + Html.esc(c.function()))
                        .append("</code>");
            }
            h.append("</p>");
        }
        h.append("<table class=\"gs-args\"><tr><th>argument</th><th>shape</th><th>dtype</th><th>device</th>"
                + "<th>values</th></tr>");
        Report.IndexJson ix = o.index();
        for (Report.TensorArgJson a : o.args()) {
            h.append("<tr><td>")
                    .append(Html.esc(a.name()))
                    .append("</td><td><code>")
                    .append(Html.esc(a.shape() == null ? "" : a.shape().toString()))
                    .append("</code></td><td>")
                    .append(Html.esc(a.dtype()))
                    .append("</td><td>")
                    .append(Html.esc(a.device()))
                    .append("</td><td>");
            if (a.index() && ix != null) {
                boolean bad = Boolean.TRUE.equals(ix.outOfRange());
                h.append(bad ? "<span class=\"gs-out-of-range\">" : "<span>")
                        .append(Html.esc(ix.min() == null ? "not readable" : "min " + ix.min() + ", max " + ix.max()))
                        .append("</span>");
                if (ix.size() != null) {
                    h.append(Html.esc("; valid 0.." + (ix.size() - 1) + " (" + ix.of() + " has " + ix.size() + " "
                            + ix.unit() + ")"));
                }
                if (ix.ignoreIndex() != null) {
                    h.append(Html.esc("; ignore_index " + ix.ignoreIndex()));
                }
            }
            h.append("</td></tr>");
        }
        h.append("</table>");
        if (ix != null && ix.statsFrom() != null) {
            h.append("<p class=\"gs-count\">")
                    .append(Html.esc("Index values read " + ix.statsFrom() + " (probe, " + o.phase() + " phase"
                            + (o.rank() == null ? "" : ", rank " + o.rank()) + "). The operator raised "
                            + o.exceptionType() + ": " + o.message()))
                    .append("</p>");
        }
        h.append("</div>");
    }

    private static void whereRow(StringBuilder h, String label, Report.LocationJson l, String cls) {
        if (l == null) {
            return;
        }
        h.append("<tr class=\"")
                .append(cls)
                .append("\"><td>")
                .append(Html.esc(label))
                .append("</td><td><code>")
                .append(Html.esc(l.file()))
                .append(':')
                .append(l.line());
        if (l.function() != null) {
            h.append(" in ").append(Html.esc(l.function()));
        }
        h.append("</code></td><td><code>").append(Html.esc(l.code())).append("</code></td></tr>");
    }

    private void execution(StringBuilder h, Report.ExecutionJson e, List<Report.SanitizerRunJson> runs) {
        h.append(
                "<section class=\"gs-phases\"><h2>Phases</h2><table><tr><th>phase</th><th>command</th><th>GPU</th>"
                        + "<th>status</th><th>exit</th><th>wall</th><th>time to failure</th><th>errors counted / printed</th><th>raw outputs</th></tr>");
        for (Report.PhaseJson p : e.phases()) {
            phaseRow(h, p, runs);
        }
        h.append("</table>");
        if (e.regressionTargetSeconds() != null) {
            h.append("<p>")
                    .append(Html.esc(String.format(
                            Locale.ROOT,
                            "Regression target %.1f s (reference failure %.1f s, %s).",
                            e.regressionTargetSeconds(),
                            Objects.requireNonNullElse(e.referenceFailureSeconds(), Double.NaN),
                            e.referenceSource() == null ? "given" : e.referenceSource())))
                    .append("</p>");
        }
        if (e.environment() != null) {
            environment(h, e.environment());
        }
        h.append("</section>\n");
    }

    /** Commands up to this many characters are shown whole; longer ones collapsed to their start. */
    static final int COMMAND_SHOWN = 120;

    /**
     * A phase's command line: whole when short; else collapsed ({@code <details>}, no script) to its first {@link
     * #COMMAND_SHOWN} characters and its length, the whole line inside. A compute-sanitizer line with its options
     * and the job's own arguments runs to hundreds of characters: the cell wraps anywhere (report.css) and keeps a
     * readable width instead of squeezing the line into a narrow column.
     */
    static void command(StringBuilder h, String command) {
        int length = command.codePointCount(0, command.length());
        if (length <= COMMAND_SHOWN) {
            h.append("<code>").append(Html.esc(command)).append("</code>");
            return;
        }
        String start = command.substring(0, command.offsetByCodePoints(0, COMMAND_SHOWN));
        h.append("<details><summary><code class=\"gs-command-start\">")
                .append(Html.esc(start))
                .append("\u2026</code> <span class=\"gs-command-length\">(")
                .append(length)
                .append(" characters)</span></summary><code>")
                .append(Html.esc(command))
                .append("</code></details>");
    }

    /** A phase's row: what ran, how it ended, what the tool counted, links to its raw outputs; its note below. */
    private void phaseRow(StringBuilder h, Report.PhaseJson p, List<Report.SanitizerRunJson> runs) {
        h.append("<tr><td>").append(Html.esc(p.name())).append("</td><td class=\"gs-command\">");
        command(h, String.join(" ", p.command()));
        h.append("</td><td>")
                .append(Html.esc(p.gpu()))
                .append("</td><td class=\"gs-status-")
                .append(Html.esc(p.status()))
                .append("\">")
                .append(Html.esc(p.status()))
                .append("</td><td>")
                .append(p.exitCode() == null ? "" : p.exitCode())
                .append(p.signal() == null ? "" : " (signal " + p.signal() + ")")
                .append("</td><td>")
                .append(String.format(Locale.ROOT, "%.1f s", p.wallSeconds()))
                .append("</td><td>")
                .append(
                        p.timeToFailureSeconds() == null
                                ? ""
                                : String.format(Locale.ROOT, "%.1f s", p.timeToFailureSeconds()))
                .append("</td><td>")
                .append(Html.esc(counted(p, runs)))
                .append("</td><td>");
        for (String f : p.files()) {
            if (f.startsWith("/") || f.contains("..") || f.contains("\\") || f.contains(":")) {
                continue; // run.json is input too: never link outside the run directory
            }
            h.append("<a href=\"")
                    .append(Html.esc(rawBase + urlPath(f)))
                    .append("\">")
                    .append(Html.esc(f.substring(f.lastIndexOf('/') + 1)))
                    .append("</a> ");
        }
        h.append("</td></tr>");
        if (p.note() != null) {
            h.append("<tr class=\"gs-note\"><td></td><td colspan=\"8\">")
                    .append(Html.esc(p.note()))
                    .append("</td></tr>");
        }
    }

    private static void environment(StringBuilder h, Report.EnvironmentJson env) {
        h.append("<h3>Environment</h3><table class=\"gs-env\">");
        envRow(h, "driver", env.driverVersion() + " (supports CUDA " + env.driverCudaVersion() + ")");
        for (Report.GpuJson g : env.gpus()) {
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

    private static String counted(Report.PhaseJson p, List<Report.SanitizerRunJson> runs) {
        if (p.tool() == null) {
            return "";
        }
        for (Report.SanitizerRunJson r : runs) {
            if (r.tool().equals(p.tool())) {
                return (r.errorsTotal() == null ? "unknown" : r.errorsTotal().toString()) + " / " + r.recordsParsed();
            }
        }
        return "no output";
    }

    /** A relative file path as a URL path: each segment percent-encoded. */
    static String urlPath(String relative) {
        StringBuilder sb = new StringBuilder();
        for (String seg : relative.split("/")) {
            if (sb.length() > 0) {
                sb.append('/');
            }
            sb.append(java.net.URLEncoder.encode(seg, java.nio.charset.StandardCharsets.UTF_8)
                    .replace("+", "%20"));
        }
        return sb.toString();
    }

    private static void envRow(StringBuilder h, String k, String v) {
        h.append("<tr><th>")
                .append(Html.esc(k))
                .append("</th><td>")
                .append(Html.esc(v))
                .append("</td></tr>");
    }

    private static void defects(StringBuilder h, List<Report.DefectJson> defects, String title) {
        h.append("<section class=\"gs-defects\"><h2>")
                .append(Html.esc(title))
                .append(" (")
                .append(defects.size())
                .append(")</h2>");
        if (defects.isEmpty()) {
            h.append("<p>None.</p>");
        }
        for (Report.DefectJson d : defects) {
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
    private static void defectSummary(StringBuilder h, Report.DefectJson d) {
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

    private static void defectDetails(StringBuilder h, Report.DefectJson d) {
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
    private static void hostStack(StringBuilder h, List<Report.FrameJson> stack) {
        h.append("<ol class=\"gs-stack\">");
        int shown = 0;
        for (Report.FrameJson f : stack) {
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

    private static void failures(StringBuilder h, List<Report.FailureJson> failures) {
        if (failures.isEmpty()) {
            return;
        }
        h.append("<section class=\"gs-failures\"><h2>Job failures by phase</h2><table><tr><th>phase</th><th>error</th>"
                + "<th>innermost user frame</th><th>message</th></tr>");
        for (Report.FailureJson f : failures) {
            h.append("<tr><td>")
                    .append(Html.esc(f.phase()))
                    .append("</td><td>")
                    .append(Html.esc(f.errorClass()))
                    .append(f.asyncWarning() ? " <span class=\"gs-async\">(asynchronous report)</span>" : "")
                    .append("</td><td><code>");
            if (f.userFrame() != null) {
                h.append(Html.esc(f.userFrame().file()))
                        .append(':')
                        .append(f.userFrame().line());
            }
            h.append("</code>");
            if (f.rank() != null) {
                h.append(" <span class=\"gs-rank\">rank ").append(f.rank()).append("</span>");
            }
            if (f.modelLine() != null) {
                h.append("<br>model line <code>")
                        .append(Html.esc(f.modelLine().file()))
                        .append(':')
                        .append(f.modelLine().line())
                        .append("</code>");
            }
            h.append("</td><td>").append(Html.esc(f.message())).append("</td></tr>");
        }
        h.append("</table>");
        for (Report.FailureJson f : failures) {
            if (f.messages() == null || f.messages().isEmpty()) {
                continue;
            }
            h.append("<p>").append(Html.esc(f.phase())).append(": CUDA errors printed outside any traceback</p><ul>");
            for (Report.CudaMessageJson m : f.messages()) {
                h.append("<li>")
                        .append(Html.esc(m.stream()))
                        .append(" line ")
                        .append(m.line())
                        .append(m.count() > 1 ? " (" + m.count() + " times)" : "")
                        .append(m.rank() == null ? "" : " rank " + m.rank())
                        .append(": <code>")
                        .append(Html.esc(m.text()))
                        .append("</code></li>");
            }
            h.append("</ul>");
        }
        h.append("</section>\n");
    }

    private static void memory(
            StringBuilder h, List<Report.MemoryJson> curves, Double target, Report.AllocationSitesJson unattached) {
        Report.AllocationSitesJson sites = unattached;
        for (Report.MemoryJson m : curves) {
            if (m.allocationSites() != null) {
                sites = m.allocationSites();
            }
        }
        if (curves.isEmpty() && sites == null) {
            return;
        }
        h.append("<section class=\"gs-memory\"><h2>GPU memory</h2><ul>");
        for (Report.MemoryJson m : curves) {
            h.append("<li>")
                    .append(Html.esc(m.label()))
                    .append(" (GPU ")
                    .append(Html.esc(m.gpu()))
                    .append("): ")
                    .append(Html.esc(m.description()))
                    .append("</li>");
            if (m.basisNote() != null) {
                // which curve was judged: the job's own processes, the card's total, or the probe's allocator
                h.append("<li class=\"gs-basis\">Curve: ")
                        .append(Html.esc(m.basisNote()))
                        .append("</li>");
            }
        }
        if (sites != null) {
            if (sites.oom() != null) {
                h.append("<li class=\"gs-grew\">")
                        .append(Html.esc(sites.oom().summary()))
                        .append("</li>");
            }
            h.append("<li").append(sites.growing() ? " class=\"gs-grew\"" : "").append('>');
            h.append(Html.esc(sites.summary())).append("</li>");
        }
        h.append("</ul><div class=\"gs-charts\">");
        double seconds = sites == null ? 1 : SiteChart.maxSeconds(sites);
        if (!curves.isEmpty()) {
            h.append(MemoryChart.svg(curves, target, seconds));
        }
        if (sites != null && !sites.series().isEmpty()) {
            double t = Math.max(seconds, target == null ? 0 : target);
            for (Report.MemoryJson m : curves) {
                for (double[] p : m.points()) {
                    t = Math.max(t, p[0]);
                }
            }
            h.append(SiteChart.svg(sites, t));
        }
        h.append("</div>");
        if (sites != null) {
            allocationSites(h, sites);
        }
        h.append("</section>\n");
    }

    private static void allocationSites(StringBuilder h, Report.AllocationSitesJson a) {
        String end = "oom".equals(a.endAt()) ? "at the OOM" : "at the end";
        h.append("<h3>")
                .append(Html.esc(String.format(
                        Locale.ROOT,
                        "Live memory by allocation site (PyTorch allocator, %s%s, %d snapshots)",
                        a.rank() == null ? "pid " + a.pid() : "rank " + a.rank(),
                        a.warmupSeconds() == null
                                ? ""
                                : String.format(Locale.ROOT, "; warm-up %.1f s", a.warmupSeconds()),
                        a.samples())))
                .append("</h3><table class=\"gs-sites\"><tr><th>allocated at</th><th>called from</th>"
                        + "<th>blocks after warm-up</th><th>MiB after warm-up</th><th>blocks ")
                .append(Html.esc(end))
                .append("</th><th>MiB ")
                .append(Html.esc(end))
                .append("</th><th>growth MiB</th></tr>");
        for (Report.AllocationSiteJson s : a.sites()) {
            if (ProbeEvidence.NO_PYTHON_FRAME.equals(s.site().file())) {
                h.append("<tr><td>no Python frame recorded (a C++/library allocation)");
            } else {
                h.append("<tr><td><code>")
                        .append(Html.esc(s.site().file()))
                        .append(':')
                        .append(s.site().line())
                        .append(
                                s.site().function() == null
                                        ? ""
                                        : " in " + Html.esc(s.site().function()))
                        .append("</code>");
            }
            if (s.site().code() != null) {
                h.append("<br><code>").append(Html.esc(s.site().code())).append("</code>");
            }
            h.append("</td><td>");
            for (Report.LocationJson c : s.stack()) {
                h.append("<code>")
                        .append(Html.esc(c.file()))
                        .append(':')
                        .append(c.line())
                        .append("</code> ");
            }
            h.append(String.format(
                    Locale.ROOT,
                    "</td><td class=\"gs-num\">%,d</td><td class=\"gs-num\">%.1f</td><td class=\"gs-num\">%,d</td>"
                            + "<td class=\"gs-num\">%.1f</td><td class=\"gs-num%s\">%+.1f</td></tr>",
                    s.blocksAtWarmup(),
                    s.bytesAtWarmup() / 1048576.0,
                    s.blocksAtEnd(),
                    s.bytesAtEnd() / 1048576.0,
                    s.growthBytes() > (1L << 20) ? " gs-grew" : "",
                    s.growthBytes() / 1048576.0));
        }
        h.append("</table>");
        if (a.oom() != null && a.oom().snapshotFile() != null) {
            h.append("<p>")
                    .append(Html.esc("Allocator snapshot at the out-of-memory: "
                            + a.oom().snapshotFile() + " (open it at pytorch.org/memory_viz)."))
                    .append("</p>");
        }
    }

    /** A run-time (CuPy/NVRTC) kernel's cache file is no source line: said as such, with the saved text. */
    private static String deviceLine(Report.LocationJson l) {
        SourceLocation s = new SourceLocation(l.file(), l.line(), l.function(), l.code());
        return RuntimeKernels.isCacheFile(s) ? RuntimeKernels.at(s) : l.file() + ":" + l.line();
    }

    private static void probe(StringBuilder h, Report.ProbeJson p) {
        if (p == null) {
            return;
        }
        h.append("<section class=\"gs-probe\"><h2>In-process probe</h2><table><tr><th>phase</th><th>status</th>"
                + "<th>processes</th><th>records</th><th>probe time</th><th>watched calls / snapshots</th>"
                + "<th>problems</th></tr>");
        for (Report.ProbePhaseJson s : p.phases()) {
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

    private static void sanitizerRuns(StringBuilder h, List<Report.SanitizerRunJson> runs) {
        if (runs.isEmpty()) {
            return;
        }
        h.append(
                "<section class=\"gs-runs\"><h2>Sanitizer outputs</h2><table><tr><th>tool</th><th>text</th><th>xml</th>"
                        + "<th>errors (summary)</th><th>not printed</th><th>records read</th><th>complete</th></tr>");
        for (Report.SanitizerRunJson s : runs) {
            h.append("<tr><td>")
                    .append(Html.esc(s.tool()))
                    .append("</td><td><code>")
                    .append(Html.esc(s.textSource()))
                    .append("</code></td><td><code>")
                    .append(Html.esc(s.xmlSource()))
                    .append("</code></td><td>")
                    .append(s.errorsTotal() == null ? "unknown" : s.errorsTotal())
                    .append("</td><td>")
                    .append(s.errorsNotPrinted() == null ? "" : s.errorsNotPrinted())
                    .append("</td><td>")
                    .append(s.recordsParsed())
                    .append("</td><td>")
                    .append(s.complete() ? "yes" : "<b>no</b>")
                    .append("</td></tr>");
        }
        h.append("</table></section>\n");
    }
}
