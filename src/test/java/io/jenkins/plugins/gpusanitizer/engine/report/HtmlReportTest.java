package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HtmlReportTest {
    static final String PAYLOAD = "<img src=x onerror=alert(1)>\"'</style><script>alert(2)</script>";

    @Test
    void hostileKernelNamesAndPathsAreEscaped(@TempDir Path dir) {
        // a real record with the kernel name and a frame path replaced by hostile strings
        String log = Corpus.textRun("mc-oob")
                .replace("oob_write(int *, int)", PAYLOAD)
                .replace("in oob\n", "in " + PAYLOAD + "\n");
        Path file = Corpus.write(dir, "hostile.log", log);
        GatePolicy p = GatePolicy.defaults();
        Report r = new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer()
                        .analyze(new AnalysisInput(
                                List.of(new SanitizerInput(file, false, null)), Map.of(), null, null, null, p)));
        assertThat(r.defects().get(0).kernel()).isEqualTo(PAYLOAD);
        String html = new HtmlReport().page(r);
        assertThat(html).doesNotContain("<img", "<script");
        assertThat(html).doesNotContain("</style>");
        assertThat(html).doesNotContainPattern("<[^>]*onerror");
        assertThat(html).contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&lt;/style&gt;&lt;script&gt;");
    }

    /**
     * Jenkins serves the run directory (the build's raw/ pages) with its directory browser's
     * Content-Security-Policy, style-src 'self': an inline style element or attribute would be refused,
     * so the page links its stylesheet, written next to it (issue #12, 2).
     */
    @Test
    void thePageLinksItsStylesheetWrittenNextToIt(@TempDir Path dir) throws IOException {
        Report r = new ReportMapper(GatePolicy.defaults().frameClassifier())
                .toReport(new Analyzer()
                        .analyze(new AnalysisInput(
                                List.of(new SanitizerInput(
                                        Corpus.write(dir, "a.log", Corpus.textRun("mc-oob")), false, null)),
                                Map.of(),
                                null,
                                null,
                                null,
                                GatePolicy.defaults())));
        String html = new HtmlReport().page(r);
        assertThat(html).contains("<link rel=\"stylesheet\" href=\"report.css\">");
        assertThat(html).doesNotContain("<style", " style=\"");
        assertThat(html).contains("style-src 'self'").doesNotContain("unsafe-inline");
        Path page = dir.resolve("out/report.html");
        Files.createDirectories(page.getParent());
        new HtmlReport().writePage(r, page);
        assertThat(page).hasContent(html);
        assertThat(dir.resolve("out/report.css")).hasContent(HtmlReport.css());
        assertThat(HtmlReport.css()).contains(".gs-verdict");
    }

    @Test
    void escapeCoversMarkupQuotesAndControlCharacters() {
        assertThat(Html.esc("a<b>&\"'`\u0007")).isEqualTo("a&lt;b&gt;&amp;&quot;&#39;&#96;\uFFFD");
        assertThat(Html.esc(null)).isEmpty();
    }
}
