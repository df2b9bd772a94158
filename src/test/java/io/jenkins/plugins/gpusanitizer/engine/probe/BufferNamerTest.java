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
            + "\"/ws/train.py\",\"line\":40,\"function\":\"main\"},\"pid\":7}";
    private static final String LIB_SITE =
            "{\"type\":\"alloc-site\",\"id\":2,\"site\":{\"file\":\"/opt/lib/helper.py\","
                    + "\"line\":3,\"function\":\"make\"},\"caller\":{\"file\":\"/ws/train.py\",\"line\":41,\"function\":\"main\"},"
                    + "\"pid\":7}";

    private BufferNamer namer(String... lines) throws IOException {
        Path f = dir.resolve("probe.jsonl");
        Files.writeString(f, String.join("\n", lines) + "\n");
        return new BufferNamer(AllocationLog.read(f), WorkPaths.of("/ws"));
    }

    private static NearestAllocation after(long distance, String base, long size) {
        return NearestAllocation.parse("Access to 0x1 is out of bounds and is " + distance
                        + " bytes after the nearest allocation at " + base + " of size " + size + " bytes")
                .orElseThrow();
    }

    @Test
    void namesTheRecordedAllocationAtMemchecksBaseWithItsLastShape() throws IOException {
        BufferEvidence b = namer(
                        SITE,
                        "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":6400,\"site\":1,\"pid\":7}",
                        "{\"type\":\"alloc-shape\",\"ptr\":\"0x7f0000001000\",\"kind\":\"tensor\",\"dtype\":\"float32\","
                                + "\"shape\":[1600,4],\"view\":true,\"pid\":7}",
                        "{\"type\":\"alloc-shape\",\"ptr\":\"0x7f0000001000\",\"kind\":\"tensor\",\"dtype\":\"float32\","
                                + "\"shape\":[1600],\"view\":false,\"pid\":7}",
                        "{\"type\":\"alloc\",\"ptr\":\"0x7f00000")
                .name(after(1, "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.AFTER);
        assertThat(b.summary())
                .isEqualTo(
                        "1 byte past the end of a 6,400-byte buffer (float32 [1600]) allocated at trainer/ops.py:27 (jitter)");
    }

    @Test
    void theLastAllocationWrittenAtAnAddressIsTheOneThatHeldIt() throws IOException {
        BufferEvidence b = namer(
                        SITE,
                        LIB_SITE,
                        "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":6400,\"site\":1,\"pid\":7}",
                        "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":512,\"site\":2,\"pid\":7}")
                .name(after(3, "0x7f0000001000", 512));
        assertThat(b.site().line())
                .as("the library frame is outside the working directory: its caller")
                .isEqualTo(41);
    }

    @Test
    void neverGuesses() throws IOException {
        String alloc = "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":6400,\"site\":1,\"pid\":7}";
        assertThat(namer(SITE, alloc).name(after(1, "0x7f0000009000", 6400)).placement())
                .isEqualTo(Placement.UNNAMED);
        assertThat(namer(SITE, alloc).name(after(1, "0x7f0000001000", 4096)).summary())
                .contains("not memcheck's");
        assertThat(namer(
                                SITE,
                                alloc,
                                SITE.replace("\"pid\":7", "\"pid\":8"),
                                alloc.replace("6400", "6400")
                                        .replace("\"site\":1", "\"site\":9")
                                        .replace("\"pid\":7", "\"pid\":8"))
                        .name(after(1, "0x7f0000001000", 6400))
                        .summary())
                .contains("different allocations");
        assertThat(namer("{\"type\":\"probe\",\"pid\":7}")
                        .name(after(1, "0x7f0000001000", 6400))
                        .summary())
                .startsWith("1 byte past the end of a 6,400-byte allocation at 0x7f0000001000; the sanitizer run has no"
                        + " allocation record");
    }

    @Test
    void anXmlAddressInsideARecordedAllocationIsFreedMemory() throws IOException {
        BufferNamer n =
                namer(SITE, "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":6400,\"site\":1,\"pid\":7}");
        BufferEvidence b = n.name(NearestAllocation.parse("Address 0x7f0000001010 is out of bounds")
                .orElseThrow());
        assertThat(b.placement()).isEqualTo(Placement.FREED);
        assertThat(b.distance()).isEqualTo(16);
        assertThat(n.name(NearestAllocation.parse("Address 0x7f0000009000 is out of bounds")
                        .orElseThrow()))
                .isNull();
    }
}
