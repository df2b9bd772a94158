package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.StreamSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 12: with --reference and --fail-on new, a change that fixes the out-of-bounds write at
 * one line of a kernel and adds one at another line of the same kernel was "outstanding, also in the
 * reference": PASS. The reference is the real H200 memcheck log of the Triton stride job
 * (records/h200-2026-12-03-verify.zip.xz, triton-stride: row_scale_bias_kernel writes out of bounds at
 * triton_stride.py:40, launched from :51); the change is that log edited. Issue #40, F8: only the same
 * defect (kernel, device line, access) is outstanding.
 */
class ReferenceDeviceLineTest {
    static final Path RUN = Records.unpacked("h200-2026-12-03-verify/triton-stride/sanitizer-memcheck");
    static final Path LOG = RUN.resolve("sanitizer.log");
    static final Path XML = RUN.resolve("sanitizer.xml");
    private static final String FAULT = "row_scale_bias_kernel+0x220 in triton_stride.py:40";
    /** The same place in the XML, which has full paths (the text gives base names only). */
    private static final Pattern XML_FAULT =
            Pattern.compile("(<path>/work/main/examples/triton_stride\\.py</path>\\s*<line>)40(</line>\\s*<pc>)0x220<");
    /** Every line of the job's file in the XML, device and host. */
    private static final Pattern XML_LINE =
            Pattern.compile("(<path>/work/main/examples/triton_stride\\.py</path>\\s*<line>)(\\d+)<");

    private static final Pattern TEXT_LINE = Pattern.compile("triton_stride\\.py:(\\d+)");

    @TempDir
    Path dir;

    private String recorded;
    private String recordedXml;
    private Path reference;

    @BeforeEach
    void reference() throws IOException {
        recorded = Files.readString(LOG, StandardCharsets.UTF_8);
        recordedXml = Files.readString(XML, StandardCharsets.UTF_8);
        assertThat(recorded).contains("at " + FAULT);
        assertThat(XML_FAULT.matcher(recordedXml).find()).isTrue();
        reference = dir.resolve("reference.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "-q",
                "--json",
                reference.toString(),
                "--sanitizer-log",
                LOG.toString(),
                "--sanitizer-xml",
                XML.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(1);
        assertThat(CliRunner.json(reference).get("defects"))
                .singleElement()
                .satisfies(d ->
                        assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(51));
    }

    private JsonNode againstReference(int exit, String changedLog, String changedXml) throws IOException {
        Path log = dir.resolve("change.log");
        Files.writeString(log, changedLog, StandardCharsets.UTF_8);
        Path xml = dir.resolve("change.xml");
        Files.writeString(xml, changedXml, StandardCharsets.UTF_8);
        Path json = dir.resolve("report.json");
        CliRunner r = CliRunner.run(
                "analyze",
                "--json",
                json.toString(),
                "--sanitizer-log",
                log.toString(),
                "--sanitizer-xml",
                xml.toString(),
                "--reference",
                reference.toString(),
                "--fail-on",
                "new");
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(exit);
        return CliRunner.json(json);
    }

    private static String referenceLine(JsonNode report) {
        return StreamSupport.stream(report.get("reasons").spliterator(), false)
                .filter(x -> x.get("code").asText().equals("reference"))
                .map(x -> x.get("message").asText())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void aFixBesideANewFaultInTheSameKernelIsNew() throws IOException {
        JsonNode report = againstReference(
                1,
                recorded.replace(FAULT, "row_scale_bias_kernel+0x2a0 in triton_stride.py:44"),
                XML_FAULT
                        .matcher(recordedXml)
                        .replaceAll(x -> Matcher.quoteReplacement(x.group(1) + "44" + x.group(2) + "0x2a0<")));
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(report.get("defects"))
                .filteredOn(d -> !d.get("suppressed").asBoolean())
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.get("status").asText()).isEqualTo("new");
                    assertThat(d.get("deviceLocation").get("line").asInt()).isEqualTo(44);
                });
        assertThat(report.get("fixed"))
                .singleElement()
                .satisfies(d ->
                        assertThat(d.get("deviceLocation").get("line").asInt()).isEqualTo(40));
        assertThat(referenceLine(report)).endsWith("1 new, 0 outstanding, 1 fixed");
    }

    private static String reason(JsonNode report, String code) {
        return StreamSupport.stream(report.get("reasons").spliterator(), false)
                .filter(x -> x.get("code").asText().equals(code))
                .map(x -> x.get("message").asText())
                .findFirst()
                .orElseThrow();
    }

    @Test
    void theSameDeviceLineLaunchedFromAMovedLineIsOutstanding() throws IOException {
        // three lines added above the launch, below the kernel: the host lines move, the device line stays at :40
        String shifted = TEXT_LINE
                .matcher(recorded)
                .replaceAll(
                        x -> "triton_stride.py:" + (x.group(1).equals("40") ? 40 : Integer.parseInt(x.group(1)) + 3));
        String shiftedXml = XML_LINE.matcher(recordedXml)
                .replaceAll(x -> Matcher.quoteReplacement(
                        x.group(1) + (x.group(2).equals("40") ? 40 : Integer.parseInt(x.group(2)) + 3) + "<"));
        JsonNode report = againstReference(0, shifted, shiftedXml);
        assertThat(report.get("verdict").asText()).isEqualTo("PASS");
        assertThat(report.get("defects"))
                .filteredOn(d -> !d.get("suppressed").asBoolean())
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.get("status").asText()).isEqualTo("outstanding");
                    assertThat(d.get("deviceLocation").get("line").asInt()).isEqualTo(40);
                    assertThat(d.get("hostLocation").get("line").asInt()).isEqualTo(54);
                });
        assertThat(referenceLine(report)).endsWith("0 new, 1 outstanding, 0 fixed");
    }

    @Test
    void codeAddedAboveKernelAndLaunchIsNotTakenForTheSameFault() throws IOException {
        // Issue #40, F8: three lines added at the top of the file move the device line and every host line there
        // by 3, as a fix at :40 with a new fault 3 lines lower inside the kernel would: the report cannot tell the
        // two apart, so the fault at another device line is new (the reason says which line the reference had)
        String shifted =
                TEXT_LINE.matcher(recorded).replaceAll(x -> "triton_stride.py:" + (Integer.parseInt(x.group(1)) + 3));
        String shiftedXml = XML_LINE.matcher(recordedXml)
                .replaceAll(x -> Matcher.quoteReplacement(x.group(1) + (Integer.parseInt(x.group(2)) + 3) + "<"));
        JsonNode report = againstReference(1, shifted, shiftedXml);
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(referenceLine(report)).endsWith("1 new, 0 outstanding, 1 fixed");
        assertThat(reason(report, "reference-new"))
                .contains("another device line (triton_stride.py:40 there, triton_stride.py:43 here)");
    }

    @Test
    void anotherAccessAtTheSameDeviceLineIsNew() throws IOException {
        // the statement at :40 now reads out of bounds where the reference's wrote
        JsonNode report = againstReference(
                1,
                recorded.replace("Invalid __global__ write of size", "Invalid __global__ read of size"),
                recordedXml
                        .replace("<text>Invalid __global__ write of size", "<text>Invalid __global__ read of size")
                        .replace("<direction>write</direction>", "<direction>read</direction>"));
        assertThat(report.get("verdict").asText()).isEqualTo("FAIL");
        assertThat(report.get("defects"))
                .filteredOn(d -> !d.get("suppressed").asBoolean())
                .singleElement()
                .satisfies(d -> {
                    assertThat(d.get("status").asText()).isEqualTo("new");
                    assertThat(d.get("message").asText()).isEqualTo("Invalid __global__ read of size 4 bytes");
                    assertThat(d.get("deviceLocation").get("line").asInt()).isEqualTo(40);
                });
        assertThat(referenceLine(report)).endsWith("1 new, 0 outstanding, 1 fixed");
        assertThat(reason(report, "reference-new")).contains("another access");
    }
}
