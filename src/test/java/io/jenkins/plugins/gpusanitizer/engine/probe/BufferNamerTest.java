package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence;
import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence.Placement;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.WorkPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class BufferNamerTest {
    @TempDir
    Path dir;

    private static final String SITE = "{\"type\":\"alloc-site\",\"id\":1,\"site\":{\"file\":\"/ws/trainer/ops.py\","
            + "\"line\":27,\"function\":\"jitter\",\"code\":\"out = torch.zeros_like(x)\"},\"caller\":{\"file\":"
            + "\"/ws/train.py\",\"line\":40,\"function\":\"main\"}}";
    private static final String LIB_SITE = "{\"type\":\"alloc-site\",\"id\":2,\"site\":{\"file\":"
            + "\"/opt/lib/helper.py\",\"line\":3,\"function\":\"make\"},\"caller\":{\"file\":\"/ws/train.py\","
            + "\"line\":41,\"function\":\"main\"}}";
    private static final String ALLOC = "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":10496,\"site\":1}";

    private void file(String name, String... lines) throws IOException {
        Files.writeString(dir.resolve(name), String.join("\n", lines) + "\n");
    }

    private BufferEvidence name(NearestAllocation access) {
        return new BufferNamer(AllocationLog.read(dir), WorkPaths.of("/ws")).name(access);
    }

    private static NearestAllocation after(long distance, String base, long size) {
        return NearestAllocation.parse("Access to 0x1 is out of bounds and is " + distance
                        + " bytes after the nearest allocation at " + base + " of size " + size + " bytes")
                .orElseThrow();
    }

    @Test
    void namesTheRecordedAllocationAtMemchecksBaseWithItsShape() throws IOException {
        file(
                "alloc-7.jsonl",
                SITE,
                ALLOC,
                "{\"type\":\"alloc-shape\",\"ptr\":\"0x7f0000001000\",\"dtype\":\"float32\",\"shape\":[1600]}",
                "{\"type\":\"alloc\",\"ptr\":\"0x7f00000");
        BufferEvidence b = name(after(1, "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.AFTER);
        assertThat(b.size())
                .as("memcheck's size: the record's counts the --padding guard zone")
                .isEqualTo(6400);
        assertThat(b.summary())
                .isEqualTo("1 byte past the end of a 6,400-byte buffer (float32 [1600]) allocated at"
                        + " trainer/ops.py:27 (jitter)");
    }

    @Test
    void theLastAllocationWrittenAtAnAddressHeldItAndTheNewerFileComesLast() throws IOException {
        file("alloc-7.prev.jsonl", SITE, ALLOC);
        file(
                "alloc-7.jsonl",
                SITE,
                LIB_SITE,
                "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":4608,\"site\":2}");
        BufferEvidence b = name(after(3, "0x7f0000001000", 512));
        assertThat(b.shape()).isNull();
        assertThat(b.site().line())
                .as("the library frame is outside the working directory: its caller")
                .isEqualTo(41);
    }

    @Test
    void neverGuesses() throws IOException {
        file("alloc-7.jsonl", SITE, ALLOC);
        assertThat(name(after(1, "0x7f0000009000", 6400)).summary())
                .startsWith("1 byte past the end of a 6,400-byte allocation at 0x7f0000009000; the job's allocation"
                        + " record has none there");
        assertThat(name(after(1, "0x7f0000001000", 16384)).summary()).contains("not memcheck's");
        assertThat(name(NearestAllocation.parse("Address 0x7f0000001010 is out of bounds")
                        .orElseThrow()))
                .as("an XML record without its text record: no allocation named")
                .isNull();
        file("alloc-8.jsonl", SITE.replace("\"line\":27", "\"line\":30"), ALLOC);
        assertThat(name(after(1, "0x7f0000001000", 6400)).summary()).contains("different allocations");
    }

    @Test
    void withoutARecordNothingIsAdded() {
        assertThat(name(after(1, "0x7f0000001000", 6400))).isNull();
    }
}
