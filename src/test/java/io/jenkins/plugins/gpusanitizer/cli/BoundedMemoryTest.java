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
 * Streaming in bounded memory: a 160 MB log built from a real record is analysed by a separate JVM
 * limited to a 32 MiB heap (the 1 GiB / -Xmx64m figure is in docs/performance.md, bench/run.sh).
 */
class BoundedMemoryTest {
    @TempDir
    Path dir;

    @Test
    void largeLogUnderATinyHeap() throws Exception {
        String[] lines = Corpus.textRun("mc-oob").split("\n");
        // one real record (header to separator) repeated with other threads and kernels
        int start = 1;
        int end = java.util.Arrays.asList(lines).indexOf("========= ");
        Path log = dir.resolve("big.log");
        long records = 0;
        try (BufferedWriter w = Files.newBufferedWriter(log, StandardCharsets.UTF_8)) {
            w.write("========= COMPUTE-SANITIZER\n");
            while (records < 420_000) {
                for (int i = start; i <= end; i++) {
                    String l = lines[i];
                    if (l.contains("by thread")) {
                        l = "=========     by thread (" + (records % 1024) + ",0,0) in block (" + (records % 97)
                                + ",0,0)";
                    } else if (l.contains("at oob_write")) {
                        l = l.replace("oob_write", "oob_write_" + (records % 50));
                    }
                    w.write(l);
                    w.write('\n');
                }
                records++;
            }
            w.write("========= ERROR SUMMARY: " + records + " errors\n");
        }
        assertThat(Files.size(log)).isGreaterThan(150_000_000L);
        CliJvm.Ended p = CliJvm.analyze("32m", "--sanitizer-log", log.toString(), "-q");
        String out = p.out();
        assertThat(p.exit()).as(out).isEqualTo(1);
        assertThat(out).contains("50 defect(s)", records + " sanitizer error(s) counted");
    }
}
