package io.jenkins.plugins.gpusanitizer.engine.report;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileSystemException;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/**
 * Renders the report as an HTML fragment (shared by the CLI page and the Jenkins build page) and as
 * a standalone page with its stylesheet next to it. No script, no event attributes (Jenkins' Content-Security-Policy); every
 * string from a tool or log goes through {@link Html#esc}. Styles live in report.css. Each section of the page is
 * rendered by its own class ({@link DiagnosisSection}, {@link PhasesSection}, {@link DefectsSection}, ...); this one
 * writes the verdict and puts them in order.
 */
public final class HtmlReport {

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

    /**
     * @param rawBase the URL prefix of the run directory's files ({@code raw/} on the Jenkins build page), or null for
     *     none ({@link #withoutRawLinks})
     */
    public HtmlReport(String rawBase) {
        this.rawBase = rawBase;
    }

    /**
     * For a reader who may not open the raw outputs (the build page without Run/Artifacts, as core's build page lists
     * no artifacts then), or where they are gone: the page names and links none of them.
     */
    public static HtmlReport withoutRawLinks() {
        return new HtmlReport(null);
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
        for (ReasonJson reason : r.reasons()) {
            h.append("<li class=\"gs-reason gs-")
                    .append(Html.esc(reason.level()))
                    .append("\"><span class=\"gs-level\">")
                    .append(Html.esc(reason.level()))
                    .append("</span> ")
                    .append(Html.esc(reason.message()))
                    .append("</li>");
        }
        h.append("</ul></div>\n");
        DiagnosisSection.append(h, r.diagnosis(), r.defects());
        if (r.execution() != null) {
            PhasesSection.append(h, r.execution(), r.sanitizerRuns(), rawBase);
        }
        WorkSection.append(h, r.work(), rawBase);
        CoverageSection.append(h, r.coverage());
        DefectsSection.append(
                h, r.defects().stream().filter(d -> !d.suppressed()).toList(), "Defects");
        List<DefectJson> suppressed =
                r.defects().stream().filter(DefectJson::suppressed).toList();
        if (!suppressed.isEmpty()) {
            DefectsSection.append(h, suppressed, "Suppressed defects");
        }
        FixedSection.append(h, r);
        FailuresSection.append(h, r.failures());
        MemorySection.append(
                h,
                r.memory(),
                r.execution() == null ? null : r.execution().regressionTargetSeconds(),
                r.probe() == null ? null : r.probe().allocationSites());
        ProbeSection.append(h, r.probe());
        SanitizerOutputsSection.append(h, r.sanitizerRuns());
        h.append("<p class=\"gs-footer\">")
                .append(Html.esc(r.generator()))
                .append(", report schema ")
                .append(r.schemaVersion())
                .append("</p>\n</div>");
        return h.toString();
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
}
