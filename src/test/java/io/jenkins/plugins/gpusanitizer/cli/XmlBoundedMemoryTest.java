package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The XML read in pieces on several threads still streams: a 120 MB --xml file built from real records is
 * analysed by a separate JVM limited to a 32 MiB heap (the records of a bounded number of pieces are held,
 * never the file's).
 */
class XmlBoundedMemoryTest {
    @TempDir
    Path dir;

    @Test
    void largeXmlUnderATinyHeap() throws Exception {
        String xml = Files.readString(Corpus.file("far-oob/memcheck.xml"), StandardCharsets.UTF_8);
        int first = xml.indexOf("  <record>");
        String body = xml.substring(first, xml.lastIndexOf("</ComputeSanitizerOutput>"));
        Path file = dir.resolve("big.xml");
        long records = 0;
        try (BufferedWriter w = Files.newBufferedWriter(file, StandardCharsets.UTF_8)) {
            w.write(xml, 0, first);
            for (int copy = 0; copy < 210; copy++) {
                // each copy's kernel is another one, so the defects grow with the file
                w.write(body.replace("scale_shift", "scale_shift_" + (copy % 40)));
                records += 100;
            }
            w.write("</ComputeSanitizerOutput>\n");
        }
        assertThat(Files.size(file)).isGreaterThan(110_000_000L);
        CliJvm.Ended p = CliJvm.analyze(
                "32m",
                "--sanitizer-xml",
                file.toString(),
                "--json",
                dir.resolve("report.json").toString(),
                "-q");
        String out = p.out();
        assertThat(p.exit()).as(out).isEqualTo(1);
        assertThat(out).contains("40 defect(s)");
        assertThat(Files.readString(dir.resolve("report.json"))).contains("\"recordsParsed\" : " + records);
    }
}
