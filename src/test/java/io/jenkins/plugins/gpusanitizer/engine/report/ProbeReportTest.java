package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.analysis.AnalysisInput;
import io.jenkins.plugins.gpusanitizer.engine.analysis.Analyzer;
import io.jenkins.plugins.gpusanitizer.engine.gate.GatePolicy;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The probe's evidence in report.json, the HTML report and the evidence lines, from probe.jsonl fixtures. */
class ProbeReportTest {
    @TempDir
    Path dir;

    private Path fixture(String name) throws IOException {
        Path f = dir.resolve(name);
        try (InputStream in = ProbeReportTest.class.getResourceAsStream("/probe/fixtures/" + name)) {
            Files.copy(in, f);
        }
        return f;
    }

    private Report report(Map<String, Path> logs, Map<String, Path> probe, Path csv) {
        GatePolicy p = GatePolicy.defaults();
        return new ReportMapper(p.frameClassifier())
                .toReport(new Analyzer().analyze(new AnalysisInput(List.of(), logs, csv, null, null, p, true, probe)));
    }

    @Test
    void reportJsonCarriesTheOperatorAndTheAllocationSites() throws IOException {
        Path leakCsv = Corpus.file("curves/leak.nvidia-smi.csv");
        Map<String, Path> probe = new LinkedHashMap<>();
        probe.put("blocking", fixture("embedding-blocking.jsonl"));
        probe.put("regression", fixture("leak-regression.jsonl"));
        Report r = report(Map.of(), probe, leakCsv);
        String json = ReportJson.toJson(r);
        assertThat(json)
                .contains("\"operatorEvidence\" : [ {")
                .contains(
                        "\"summary\" : \"aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows\"")
                .contains("\"allocationSites\" : {")
                .contains("\"probe\" : {");
        assertThat(r.memory().get(0).allocationSites().growing()).isTrue();
        assertThat(r.memory().get(0).allocationSites().series()).hasSize(3);
        assertThat(r.diagnosis().summary())
                .isEqualTo(
                        "Failing operator: aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows.");
        assertThat(Evidence.lines(r))
                .containsExactly(
                        "failing operator: aten::embedding at embedding_oov.py:24: index max 5000, weight has 5000 rows",
                        "GPU memory grows because tensors allocated at logits_leak.py:23 (forward) pile up: "
                                + "1,180 live blocks, 23.0 MiB at the end against 3.5 MiB after warm-up (4.3 s).");
        Path out = dir.resolve("report.json");
        ReportJson.write(r, out);
        assertThat(ReportJson.toJson(ReportJson.read(out))).isEqualTo(json);

        String html = new HtmlReport().page(r);
        assertThat(html)
                .contains("<div class=\"gs-charts\"><svg class=\"gs-chart\"")
                .contains("gs-site-chart")
                .contains("logits_leak.py:23 (forward) (peak 23.1 MiB)")
                .contains("Live memory by allocation site")
                .contains("<span class=\"gs-out-of-range\">min 0, max 5000</span>")
                .contains("valid 0..4999 (weight has 5000 rows)");
    }

    @Test
    void allocationSitesWithoutACurveStayInTheProbeSection() throws IOException {
        Report r = report(Map.of(), Map.of("regression", fixture("oom-regression.jsonl")), null);
        assertThat(r.memory()).isEmpty();
        assertThat(r.probe().allocationSites().oom().summary()).startsWith("Out of memory at cache_oom.py:21");
        assertThat(Evidence.allocationSites(r)).isSameAs(r.probe().allocationSites());
        assertThat(new HtmlReport().page(r)).contains("gs-site-chart").contains("cache_oom.py:21");
    }

    @Test
    void aReportWithoutProbeIsUnchanged() {
        Report r = report(Map.of(), Map.of(), null);
        assertThat(r.probe()).isNull();
        assertThat(r.diagnosis().operatorEvidence()).isEmpty();
        assertThat(Evidence.lines(r)).isEmpty();
        assertThat(new HtmlReport().page(r)).doesNotContain("In-process probe");
    }

    @Test
    void hostileStringsFromTheProbeAreEscaped() throws IOException {
        String p = HtmlReportTest.PAYLOAD.replace("\"", "\\\"");
        String jsonl = String.join(
                "\n",
                "{\"type\":\"probe\",\"mode\":\"blocking\",\"pid\":1,\"rank\":\"" + p + "\"}",
                "{\"type\":\"op-failure\",\"op\":\"" + p + "\",\"pid\":1,\"rank\":\"" + p
                        + "\",\"exception\":{\"type\":\""
                        + p + "\",\"message\":\"" + p + "\"},\"site\":{\"file\":\"/w/" + p + ".py\",\"line\":3,"
                        + "\"function\":\"" + p + "\",\"code\":\"" + p + "\"},\"stack\":[{\"file\":\"" + p
                        + "\",\"line\":1,\"function\":\"" + p + "\"}],\"args\":[{\"name\":\"" + p + "\",\"shape\":[1],"
                        + "\"dtype\":\"" + p + "\",\"device\":\"" + p + "\",\"index\":true}],\"check\":{\"name\":\"" + p
                        + "\",\"min\":0,\"max\":9,\"size\":9,\"of\":\"" + p + "\",\"unit\":\"" + p
                        + "\",\"outOfRange\":true,\"statsFrom\":\"" + p + "\"}}",
                "{\"type\":\"probe-error\",\"where\":\"" + p + "\",\"error\":\"" + p + "\",\"pid\":1}",
                "");
        Path b = dir.resolve("b.jsonl");
        Files.writeString(b, jsonl, StandardCharsets.UTF_8);
        String r2 = String.join(
                "\n",
                "{\"type\":\"site\",\"id\":1,\"file\":\"/w/" + p + ".py\",\"line\":2,\"function\":\"" + p
                        + "\",\"code\":\"" + p + "\",\"stack\":[{\"file\":\"" + p
                        + "\",\"line\":1}],\"pid\":2,\"rank\":\"" + p + "\"}",
                "{\"type\":\"sites\",\"at\":\"periodic\",\"t\":1,\"allocated\":10,\"sites\":[[1,10,1]],\"pid\":2}",
                "{\"type\":\"sites\",\"at\":\"periodic\",\"t\":9,\"allocated\":99999999,\"sites\":[[1,99999999,9]],\"pid\":2}",
                "{\"type\":\"oom\",\"requested\":5,\"deviceFree\":1,\"site\":{\"file\":\"" + p
                        + "\",\"line\":4},\"pid\":2}",
                "{\"type\":\"oom-snapshot\",\"file\":\"" + p + "\",\"bytes\":3,\"pid\":2}",
                "");
        Path g = dir.resolve("r.jsonl");
        Files.writeString(g, r2, StandardCharsets.UTF_8);
        Map<String, Path> probe = new LinkedHashMap<>();
        probe.put("blocking", b);
        probe.put("regression", g);
        Report r = report(Map.of(), probe, null);
        assertThat(r.diagnosis().operatorEvidence()).hasSize(1);
        String html = new HtmlReport().page(r);
        assertThat(html).doesNotContain("<img", "<script");
        assertThat(html).doesNotContainPattern("<[^>]*onerror");
        assertThat(html)
                .as("the styles are in report.css: no </style> in the page, the hostile one escaped")
                .doesNotContain("</style>");
        assertThat(html).contains("&lt;img src=x onerror=alert(1)&gt;");
    }
}
