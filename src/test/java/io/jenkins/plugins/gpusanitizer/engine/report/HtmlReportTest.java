package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.analysis.SanitizerInput;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
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
        assertThat(html.split("</style>", -1))
                .as("only our own style element closes")
                .hasSize(2);
        assertThat(html).doesNotContainPattern("<[^>]*onerror");
        assertThat(html).contains("&lt;img src=x onerror=alert(1)&gt;&quot;&#39;&lt;/style&gt;&lt;script&gt;");
        assertThat(html.split("<style>", -1)).hasSize(2);
    }

    @Test
    void escapeCoversMarkupQuotesAndControlCharacters() {
        assertThat(Html.esc("a<b>&\"'`\u0007")).isEqualTo("a&lt;b&gt;&amp;&quot;&#39;&#96;\uFFFD");
        assertThat(Html.esc(null)).isEmpty();
    }
}
