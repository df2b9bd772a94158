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
    /** What the probe writes first: frees recorded, memcheck's --padding 4096 (the runner's default). */
    private static final String HEADER = "{\"type\":\"alloc-record\",\"frees\":true,\"shapes\":false,\"padding\":4096}";

    private static final String FREE_SITE = "{\"type\":\"alloc-site\",\"id\":3,\"site\":{\"file\":\"/ws/repro.py\","
            + "\"line\":12,\"function\":\"main\",\"code\":\"del x\"}}";

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
                HEADER,
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
        file("alloc-7.prev.jsonl", HEADER, SITE, ALLOC);
        file(
                "alloc-7.jsonl",
                HEADER,
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
        file("alloc-7.jsonl", HEADER, SITE, ALLOC);
        assertThat(name(after(1, "0x7f0000009000", 6400)).summary())
                .startsWith("1 byte past the end of a 6,400-byte allocation at 0x7f0000009000; the job's allocation"
                        + " record has none there");
        assertThat(name(after(1, "0x7f0000001000", 16384)).summary()).contains("not memcheck's");
        assertThat(name(NearestAllocation.parse("Address 0x7f0000001010 is out of bounds")
                        .orElseThrow()))
                .as("an XML record without its text record: no allocation named")
                .isNull();
        file("alloc-8.jsonl", HEADER, SITE.replace("\"line\":27", "\"line\":30"), ALLOC);
        assertThat(name(after(1, "0x7f0000001000", 6400)).summary()).contains("different allocations");
    }

    private static NearestAllocation inside(String address, String base, long size) {
        return NearestAllocation.parse("Access to " + address + " is out of bounds and is inside the nearest allocation"
                        + " at " + base + " of size " + size + " bytes")
                .orElseThrow();
    }

    private static String alloc(String ptr, long size, int site) {
        return "{\"type\":\"alloc\",\"ptr\":\"" + ptr + "\",\"size\":" + size + ",\"site\":" + site + "}";
    }

    private static String free(String ptr, Integer site) {
        return "{\"type\":\"free\",\"ptr\":\"" + ptr + "\",\"site\":" + site + "}";
    }

    @Test
    void theSizeMustBeMemchecksPlusThePaddingExactly() throws IOException {
        file("alloc-7.jsonl", HEADER, SITE, ALLOC);
        assertThat(name(after(1, "0x7f0000001000", 6400)).placement()).isEqualTo(Placement.AFTER);
        for (long memcheck : new long[] {6399, 6401, 6400 - 512, 10496}) {
            BufferEvidence b = name(after(1, "0x7f0000001000", memcheck));
            assertThat(b.placement()).as("memcheck's %d bytes", memcheck).isEqualTo(Placement.UNNAMED);
            assertThat(b.summary())
                    .contains(
                            "a 10,496-byte allocation there (4,096 bytes of it memcheck's --padding), not memcheck's");
        }
    }

    @Test
    void aRecordedAllocationWithoutASizeIsNotNamed() throws IOException {
        file("alloc-7.jsonl", HEADER, SITE, "{\"type\":\"alloc\",\"ptr\":\"0x7f0000001000\",\"size\":null,\"site\":1}");
        BufferEvidence b = name(after(1, "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.UNNAMED);
        assertThat(b.summary()).contains("has no size for it");
    }

    @Test
    void aShapeThatIsNotTheWholeBufferIsNotSaid() throws IOException {
        // a view of the first 100 floats at the buffer's first byte: 400 bytes, not memcheck's 6,400
        file(
                "alloc-7.jsonl",
                HEADER,
                SITE,
                ALLOC,
                "{\"type\":\"alloc-shape\",\"ptr\":\"0x7f0000001000\",\"dtype\":\"float32\",\"shape\":[100]}");
        BufferEvidence b = name(after(1, "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.AFTER);
        assertThat(b.shape()).isNull();
        assertThat(b.summary())
                .isEqualTo("1 byte past the end of a 6,400-byte buffer allocated at trainer/ops.py:27 (jitter)");
    }

    @Test
    void withoutTheRecordsOwnPaddingItIsTakenFromTheCommandOrTheShapesElseNothingIsNamed() throws IOException {
        String shaped = "{\"type\":\"alloc-shape\",\"ptr\":\"%s\",\"dtype\":\"int64\",\"shape\":[64]}";
        file("alloc-7.jsonl", SITE, ALLOC);
        assertThat(name(after(1, "0x7f0000001000", 6400)).summary())
                .contains("memcheck's --padding for this run is not known");
        // a gate run before the record said it: the phase's command as run
        Files.writeString(
                dir.resolve("command.txt"),
                "/usr/local/cuda/bin/compute-sanitizer --tool memcheck --padding 4096 python3 train.py --padding 8\n");
        assertThat(name(after(1, "0x7f0000001000", 6400)).placement()).isEqualTo(Placement.AFTER);
        Files.delete(dir.resolve("command.txt"));
        // a hand run: two tensors that fill their allocations (512 bytes + 4,096) say the padding
        file(
                "alloc-7.jsonl",
                SITE,
                ALLOC,
                alloc("0x7f0000100000", 4608, 1),
                String.format(shaped, "0x7f0000100000"),
                alloc("0x7f0000200000", 4608, 1),
                String.format(shaped, "0x7f0000200000"));
        assertThat(AllocationLog.read(dir).padding()).isEqualTo(4096L);
        assertThat(AllocationLog.read(dir).paddingFrom()).isEqualTo("shapes");
        assertThat(name(after(1, "0x7f0000001000", 6400)).placement()).isEqualTo(Placement.AFTER);
    }

    @Test
    void anAccessInsideABlockTheJobFreedIsAUseAfterFreeWithBothLines() throws IOException {
        // the numbers of the sparse bmm repro, as the issue read it (a block freed before the read); on the
        // card it was a misaligned read of live memory (PublicProgramsH100RecordTest)
        file(
                "alloc-7.jsonl",
                HEADER,
                SITE.replace("/ws/trainer/ops.py", "/ws/repro.py").replace("\"line\":27", "\"line\":7"),
                FREE_SITE,
                alloc("0x7f0000400000", 2_328_840 + 4096, 1),
                free("0x7f0000400000", 3));
        BufferEvidence b = name(inside("0x7f00005f4484", "0x7f0000400000", 2_328_840));
        assertThat(b.placement()).isEqualTo(Placement.USE_AFTER_FREE);
        assertThat(b.freedAt().line()).isEqualTo(12);
        assertThat(b.summary())
                .isEqualTo(
                        "use after free: inside a 2,328,840-byte buffer allocated at repro.py:7 (jitter) and freed at"
                                + " repro.py:12 (main), 2,049,156 bytes from its start");
    }

    @Test
    void aBlockFreedAndAllocatedAgainByTheSameLineKeepsTheLineThatFreedIt() throws IOException {
        file("alloc-7.jsonl", HEADER, SITE, FREE_SITE, ALLOC, free("0x7f0000001000", 3), ALLOC);
        BufferEvidence b = name(inside("0x7f0000001010", "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.USE_AFTER_FREE);
        assertThat(b.summary()).contains("allocated at trainer/ops.py:27 (jitter) and freed at repro.py:12 (main)");
    }

    @Test
    void aFreedBlockThatALiveAllocationNowCoversIsNotNamed() throws IOException {
        file(
                "alloc-7.jsonl",
                HEADER,
                SITE,
                FREE_SITE,
                alloc("0x7f0000400000", 8192 + 4096, 1),
                free("0x7f0000400000", 3),
                alloc("0x7f0000400800", 1024 + 4096, 1));
        BufferEvidence b = name(inside("0x7f0000400900", "0x7f0000400000", 8192));
        assertThat(b.placement()).isEqualTo(Placement.UNNAMED);
        assertThat(b.summary()).contains("a later one, allocated at trainer/ops.py:27 (jitter), holds the address");
    }

    @Test
    void insideABlockTheRecordNeverSawFreedIsNotNamedNorInARecordWithoutFrees() throws IOException {
        file("alloc-7.jsonl", HEADER, SITE, ALLOC);
        BufferEvidence b = name(inside("0x7f0000001010", "0x7f0000001000", 6400));
        assertThat(b.placement()).isEqualTo(Placement.UNNAMED);
        assertThat(b.summary()).contains("the job's record never saw it freed");
        // a record written before frees were recorded (no alloc-record line; the runner's command says the padding)
        file("alloc-7.jsonl", SITE, ALLOC);
        Files.writeString(
                dir.resolve("command.txt"), "compute-sanitizer --tool memcheck --padding 4096 python3 x.py\n");
        BufferEvidence old = name(inside("0x7f0000001010", "0x7f0000001000", 6400));
        assertThat(old.placement()).isEqualTo(Placement.UNNAMED);
        assertThat(old.summary()).contains("holds no frees: which buffer is not known");
    }

    @Test
    void aMisalignedAccessInsideALiveBufferNamesItAndOneTheRecordSawFreedIsNotNamed() throws IOException {
        file("alloc-7.jsonl", HEADER, SITE, ALLOC);
        NearestAllocation misaligned = NearestAllocation.parse("Access to 0x7f0000001404 is misaligned and is inside"
                        + " the nearest allocation at 0x7f0000001000 of size 6,400 bytes")
                .orElseThrow();
        assertThat(misaligned.misaligned()).isTrue();
        assertThat(name(misaligned).summary())
                .isEqualTo("misaligned, inside a 6,400-byte buffer allocated at trainer/ops.py:27 (jitter), 1,028"
                        + " bytes from its start");
        file("alloc-7.jsonl", HEADER, SITE, FREE_SITE, ALLOC, free("0x7f0000001000", 3));
        BufferEvidence freed = name(misaligned);
        assertThat(freed.placement()).isEqualTo(Placement.UNNAMED);
        assertThat(freed.summary()).contains("the job freed that allocation (at repro.py:12 (main)) before the access");
    }

    @Test
    void withoutARecordNothingIsAdded() {
        assertThat(name(after(1, "0x7f0000001000", 6400))).isNull();
    }
}
