package io.jenkins.plugins.gpusanitizer.engine.report.export;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SpecificationVersion;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** JUnit XML, SARIF and warnings-ng exports of real H200 reports (records/h200-2026-12-02.zip.xz). */
class ExportsTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-02");
    static Schema sarifSchema;

    @TempDir
    Path dir;

    @BeforeAll
    static void schema() throws Exception {
        try (InputStream in = ExportsTest.class.getResourceAsStream("/schemas/sarif-2.1.0-rtm.5.json")) {
            sarifSchema = SchemaRegistry.withDefaultDialect(SpecificationVersion.DRAFT_4)
                    .getSchema(in);
        }
    }

    private static Report report(String runCase) {
        return ReportJson.read(RECORD.resolve(runCase).resolve("report.json"));
    }

    @Test
    void sarifOfEveryRecordedCaseIsValidSarif210() throws Exception {
        for (String c : List.of("far", "near", "near-cached", "index", "triton", "clean", "leak", "initcheck")) {
            Path f = dir.resolve(c + ".sarif");
            SarifExport.write(report(c), f);
            JsonNode sarif = ReportJson.mapper().readTree(f.toFile());
            List<Error> errors = sarifSchema.validate(sarif);
            assertThat(errors).as(c + ": " + errors).isEmpty();
        }
    }

    @Test
    void sarifLocatesTheDefectAtTheUserLineWithTheDeviceLineRelated() {
        JsonNode s = ReportJson.mapper().valueToTree(SarifExport.toSarif(report("triton")));
        JsonNode result = s.at("/runs/0/results/0");
        assertThat(result.get("ruleId").asText()).isEqualTo("memcheck/out-of-bounds");
        assertThat(result.get("level").asText()).isEqualTo("error");
        assertThat(result.at("/locations/0/physicalLocation/artifactLocation/uri")
                        .asText())
                .endsWith("triton_job.py");
        assertThat(result.at("/locations/0/physicalLocation/region/startLine").asInt())
                .isEqualTo(26);
        assertThat(result.at("/relatedLocations/0/physicalLocation/region/startLine")
                        .asInt())
                .isEqualTo(20);
        assertThat(result.at("/partialFingerprints/gpuSanitizeDefect~1v1").asText())
                .hasSize(16);
        JsonNode init = ReportJson.mapper().valueToTree(SarifExport.toSarif(report("initcheck")));
        assertThat(init.at("/runs/0/results/0/suppressions/0/justification").asText())
                .startsWith("vendor-library-noise");
        assertThat(init.at("/runs/0/results/0/level").asText()).isEqualTo("note");
    }

    @Test
    void junitHasPhasesDefectsAndTheVerdict() throws Exception {
        Path f = dir.resolve("far.xml");
        JunitExport.write(report("far"), f);
        Document d = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(f.toFile());
        NodeList suites = d.getElementsByTagName("testsuite");
        assertThat(suites.getLength()).isEqualTo(3);
        Element phases = (Element) suites.item(0);
        assertThat(phases.getAttribute("tests")).isEqualTo("3");
        assertThat(phases.getAttribute("failures")).isEqualTo("3");
        Element defects = (Element) suites.item(1);
        assertThat(defects.getAttribute("failures")).isEqualTo("1");
        Element defect = (Element) defects.getElementsByTagName("testcase").item(0);
        assertThat(defect.getAttribute("classname")).isEqualTo("gpu-sanitize.memcheck");
        assertThat(defect.getAttribute("name"))
                .startsWith("out-of-bounds in fused_scale at ")
                .contains("lstm_job.py:43");
        Element gate = (Element)
                ((Element) suites.item(2)).getElementsByTagName("failure").item(0);
        assertThat(gate.getAttribute("type")).isEqualTo("FAIL");
        Path init = dir.resolve("init.xml");
        JunitExport.write(report("initcheck"), init);
        Document di = DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(init.toFile());
        assertThat(((Element) di.getElementsByTagName("skipped").item(0)).getAttribute("message"))
                .startsWith("suppressed by vendor-library-noise");
        assertThat(di.getElementsByTagName("failure").getLength())
                .as("PASS: no failing case")
                .isEqualTo(1);
    }

    @Test
    void controlCharactersFromToolsCannotBreakTheXml() {
        assertThat(JunitExport.clean("a\u0000b\u001b[0mc\td")).isEqualTo("a\uFFFDb\uFFFD[0mc\td");
    }

    @Test
    void warningsNgIssuesForOpenDefectsOnly() {
        JsonNode far = ReportJson.mapper().valueToTree(WarningsNgExport.toIssues(report("far")));
        assertThat(far.get("issues")).hasSize(1);
        JsonNode i = far.get("issues").get(0);
        assertThat(i.get("fileName").asText()).endsWith("lstm_job.py");
        assertThat(i.get("lineStart").asInt()).isEqualTo(43);
        assertThat(i.get("severity").asText()).isEqualTo("ERROR");
        assertThat(i.get("category").asText()).isEqualTo("gpu-sanitizer:memcheck");
        assertThat(i.get("fingerprint").asText())
                .isEqualTo(report("far").defects().get(0).id());
        assertThat(ReportJson.mapper()
                        .valueToTree(WarningsNgExport.toIssues(report("initcheck")))
                        .get("issues")
                        .isEmpty())
                .isTrue();
    }
}
