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
     * Issue #41, 5: a 400-character command line (compute-sanitizer's options, the job's own arguments, a hostile
     * argument among them) is collapsed to its start in the phases table, whole inside a {@code <details>} (no
     * script), escaped in both places; the cell keeps a readable width and wraps anywhere (report.css).
     */
    @Test
    void aLongCommandLineIsCollapsedInThePhasesTableAndEscaped() throws IOException {
        Path record = io.jenkins.plugins.gpusanitizer.testing.Records.unpacked("h200-2026-12-02/far");
        com.fasterxml.jackson.databind.ObjectMapper mapper = ReportJson.mapper();
        com.fasterxml.jackson.databind.node.ObjectNode tree = (com.fasterxml.jackson.databind.node.ObjectNode)
                mapper.readTree(record.resolve("report.json").toFile());
        com.fasterxml.jackson.databind.node.ArrayNode command = ((com.fasterxml.jackson.databind.node.ObjectNode)
                        tree.path("execution").path("phases").get(0))
                .putArray("command");
        StringBuilder line = new StringBuilder(
                "compute-sanitizer --tool memcheck --xml --save sanitizer.xml --print-limit 1000 python3 train.py");
        command.add(line.toString());
        for (int i = 0; line.length() < 370; i++) {
            line.append(" --layer-").append(i).append("=/data/shards/part-").append(i);
            command.add("--layer-" + i + "=/data/shards/part-" + i);
        }
        line.append(' ').append(PAYLOAD);
        command.add(PAYLOAD);
        assertThat(line.length()).isBetween(400, 460);
        Report r = mapper.treeToValue(tree, Report.class);

        String html = new HtmlReport("raw/").fragment(r);
        String cell = html.substring(html.indexOf("<td class=\"gs-command\">"));
        cell = cell.substring(0, cell.indexOf("</td>"));
        String shown = line.substring(0, PhasesSection.COMMAND_SHOWN);
        assertThat(cell)
                .startsWith("<td class=\"gs-command\"><details><summary><code class=\"gs-command-start\">"
                        + Html.esc(shown) + "\u2026</code> <span class=\"gs-command-length\">(" + line.length()
                        + " characters)</span></summary><code>" + Html.esc(line.toString()) + "</code></details>");
        assertThat(html).doesNotContain("<script", "<img").doesNotContainPattern("<[^>]*onerror");
        assertThat(HtmlReport.css())
                .contains(".gs-report code { font-family: ui-monospace, monospace; font-size: 12.5px;"
                        + " overflow-wrap: anywhere; }")
                .contains(".gs-report td.gs-command { min-width: 24em;")
                .doesNotContain("break-all");

        StringBuilder shortLine = new StringBuilder();
        PhasesSection.command(shortLine, "python3 train.py --epochs 1");
        assertThat(shortLine).hasToString("<code>python3 train.py --epochs 1</code>");
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
