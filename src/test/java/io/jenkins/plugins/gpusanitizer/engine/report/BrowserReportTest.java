package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import io.jenkins.plugins.gpusanitizer.engine.run.RunDirectory;
import io.jenkins.plugins.gpusanitizer.testing.HeadlessChromium;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Renders reports in headless Chromium (Debian's, installed by .ci/run; one browser for all pages, through
 * {@link HeadlessChromium}) and fails on any console message (a CSP refusal, a script error) or on markup that a
 * hostile string smuggled into the DOM.
 * Screenshots go to target/screenshots, or to -Dgs.screenshotDir (docs/screenshots holds the
 * committed ones). With -Dgs.requireBrowser=true (CI) a missing Chromium fails instead of skipping.
 */
class BrowserReportTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-02");
    /** One browser for every page here (a start costs more than a page): each page opens in a target of its own. */
    static HeadlessChromium browser;

    @TempDir
    Path dir;

    @BeforeAll
    static void startChromium() throws IOException, InterruptedException {
        for (String c : List.of(
                System.getenv().getOrDefault("CHROMIUM", ""), "/usr/bin/chromium", "/usr/bin/chromium-browser")) {
            if (!c.isEmpty() && Files.isExecutable(Path.of(c))) {
                browser = HeadlessChromium.start(Path.of(c));
                return;
            }
        }
        if (Boolean.getBoolean("gs.requireBrowser") || "1".equals(System.getenv("GS_REQUIRE_BROWSER"))) {
            throw new AssertionError("Chromium not found (apt-get install chromium) and gs.requireBrowser=true");
        }
        Assumptions.abort("Chromium not installed");
    }

    @AfterAll
    static void stopChromium() throws IOException, InterruptedException {
        if (browser != null) {
            browser.close();
        }
    }

    /** What Chromium printed and the DOM it ended with. */
    record Rendered(String dom, List<String> console) {}

    private Rendered render(Path html, String screenshot) throws IOException, InterruptedException {
        if (screenshot == null) {
            return renderUrl(html.toUri().toString());
        }
        Path shots = Path.of(System.getProperty("gs.screenshotDir", "target/screenshots"));
        Files.createDirectories(shots);
        Path shot = shots.toAbsolutePath().resolve(screenshot + ".png");
        Files.deleteIfExists(shot);
        HeadlessChromium.Page page = browser.render(html.toUri().toString(), shot);
        assertThat(shot).as("the screenshot").isNotEmptyFile();
        return new Rendered(page.dom(), page.console());
    }

    private Path page(Report r, String name) throws IOException {
        Path f = dir.resolve(name + ".html");
        new HtmlReport().writePage(r, f);
        return f;
    }

    private static Report runReport(String runCase) {
        RunDirectory d = new RunDirectory(RECORD.resolve(runCase));
        var record = d.readRecord();
        GatePolicy p = GatePolicy.defaults();
        return new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer().analyze(d.analysisInput(record, p, true)))
                .withExecution(record.execution());
    }

    @ParameterizedTest
    @ValueSource(strings = {"far", "near", "index", "triton", "initcheck", "leak"})
    void realH200ReportsRenderWithoutConsoleErrors(String c) throws Exception {
        Report r = runReport(c);
        Rendered out = render(page(r, c), "h200-" + c);
        assertThat(out.console()).as(c).isEmpty();
        assertThat(out.dom()).as(c).contains("gs-verdict-word\">" + r.verdict() + "<");
        assertThat(out.dom()).doesNotContain("<script", "<img");
    }

    @Test
    void hostileStringsStayText() throws Exception {
        String payload =
                "<img src=x onerror=\"console.error('pwned')\">'\"</style><script>console.error('pwned2')</script>";
        String log = Corpus.textRun("mc-oob")
                .replace("oob_write(int *, int)", payload)
                .replace("in oob\n", "in " + payload + "\n");
        Path file = Corpus.write(dir, "hostile.log", log);
        GatePolicy p = GatePolicy.defaults();
        Report r = new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer()
                        .analyze(new AnalysisInput(
                                List.of(new SanitizerInput(file, false, null)), Map.of(), null, null, null, p)));
        Rendered out = render(page(r, "hostile"), null);
        assertThat(out.console()).isEmpty();
        assertThat(out.dom()).doesNotContain("<img", "<script").contains("&lt;img src=x onerror=");
    }

    @Test
    void theConsoleCheckItselfSeesAnError() throws Exception {
        // negative control: a page whose script logs an error must be caught by the same check
        Path f = dir.resolve("control.html");
        Files.writeString(
                f, "<!DOCTYPE html><html><body><script>console.error('control error')</script></body></html>");
        Rendered out = render(f, null);
        assertThat(out.console()).anyMatch(l -> l.contains("control error"));
    }

    /**
     * jenkins-core 2.555.3, {@code DirectoryBrowserSupport.DEFAULT_CSP_VALUE}: the header the build's raw/
     * pages are served with (core/src/main/java/hudson/model/DirectoryBrowserSupport.java).
     */
    static final String JENKINS_DIRECTORY_BROWSER_CSP =
            "sandbox allow-same-origin; default-src 'none'; img-src 'self'; style-src 'self';";

    /**
     * The standalone page as Jenkins serves it under raw/ (issue #12, 2): over HTTP with the directory
     * browser's Content-Security-Policy header. It must load its stylesheet and trigger no refusal; the
     * old page, with its inline style element, is refused (negative control).
     */
    @Test
    void theRunDirectoryPageIsStyledUnderTheDirectoryBrowserCsp() throws Exception {
        Path raw = dir.resolve("raw");
        Files.createDirectories(raw);
        Report r = runReport("far");
        new HtmlReport().writePage(r, raw.resolve("report.html"));
        Files.writeString(
                raw.resolve("inline.html"),
                "<!DOCTYPE html><html><head><style>body{color:red}</style></head><body>x</body></html>",
                StandardCharsets.UTF_8);
        List<String> served = java.util.Collections.synchronizedList(new ArrayList<>());
        com.sun.net.httpserver.HttpServer server =
                com.sun.net.httpserver.HttpServer.create(new java.net.InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/raw/", exchange -> {
            String name = exchange.getRequestURI().getPath().substring("/raw/".length());
            Path f = raw.resolve(name).normalize();
            served.add(name);
            if (!f.startsWith(raw) || !Files.isRegularFile(f)) {
                exchange.sendResponseHeaders(404, -1);
                exchange.close();
                return;
            }
            byte[] body = Files.readAllBytes(f);
            exchange.getResponseHeaders()
                    .set("Content-Type", name.endsWith(".css") ? "text/css" : "text/html; charset=utf-8");
            exchange.getResponseHeaders().set("Content-Security-Policy", JENKINS_DIRECTORY_BROWSER_CSP);
            exchange.sendResponseHeaders(200, body.length);
            exchange.getResponseBody().write(body);
            exchange.close();
        });
        server.start();
        try {
            String base = "http://127.0.0.1:" + server.getAddress().getPort() + "/raw/";
            Rendered page = renderUrl(base + "report.html");
            assertThat(page.console()).isEmpty();
            assertThat(page.dom()).contains("gs-verdict-word\">" + r.verdict() + "<");
            assertThat(served).contains("report.html", HtmlReport.CSS_FILE);
            Rendered control = renderUrl(base + "inline.html");
            assertThat(control.console())
                    .anyMatch(l -> l.contains("inline style") && l.contains("Content Security Policy"));
        } finally {
            server.stop(0);
        }
    }

    private Rendered renderUrl(String url) throws IOException, InterruptedException {
        HeadlessChromium.Page page = browser.render(url, null);
        return new Rendered(page.dom(), page.console());
    }
}
