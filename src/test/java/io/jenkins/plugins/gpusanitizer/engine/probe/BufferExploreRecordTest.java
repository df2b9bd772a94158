package io.jenkins.plugins.gpusanitizer.engine.probe;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.jenkins.plugins.gpusanitizer.engine.model.NearestAllocation;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.parse.text.SanitizerTextParser;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue #42's first exploration on the card (records/h100-buffer-explore-1.zip.xz and its .md): memcheck run by
 * hand on the out-of-bounds example jobs with the probe's first allocation record (its lines in probe.jsonl).
 * The address memcheck names as the nearest allocation is the pointer the probe recorded in the same process,
 * its size the one memcheck says plus the runner's --padding guard zone, and the site the job's own line.
 */
class BufferExploreRecordTest {
    private static final ObjectMapper JSON = new ObjectMapper();

    private static NearestAllocation firstAccess(String run) {
        List<SanitizerRecord> out = new ArrayList<>();
        new SanitizerTextParser()
                .parse(Records.unpacked("h100-buffer-explore-1/" + run + "/memcheck.log"), null, out::add);
        return NearestAllocation.parse(out.get(0).detail()).orElseThrow();
    }

    /** The last allocation line at {@code base} and its site line, from the first design's probe.jsonl. */
    private static JsonNode[] recorded(String run, String base) throws IOException {
        JsonNode alloc = null;
        List<JsonNode> sites = new ArrayList<>();
        for (String line : Files.readAllLines(Records.unpacked("h100-buffer-explore-1/" + run + "/probe.jsonl"))) {
            JsonNode r = JSON.readTree(line);
            if ("alloc-site".equals(r.path("type").asText())) {
                sites.add(r);
            } else if ("alloc".equals(r.path("type").asText())
                    && base.equals(r.path("ptr").asText())) {
                alloc = r;
            }
        }
        if (alloc == null) {
            return null;
        }
        int id = alloc.path("site").asInt();
        return new JsonNode[] {
            alloc,
            sites.stream().filter(s -> s.path("id").asInt() == id).findFirst().orElseThrow()
        };
    }

    private static void named(String run, long size, String file, int line) throws IOException {
        NearestAllocation n = firstAccess(run);
        assertThat(n.size()).isEqualTo(size);
        JsonNode[] r = recorded(run, n.base());
        assertThat(r).as(run + ": the probe recorded memcheck's allocation").isNotNull();
        assertThat(r[0].path("size").asLong())
                .as("the driver's range counts --padding 4096")
                .isEqualTo(size + 4096);
        assertThat(r[1].at("/site/file").asText()).endsWith(file);
        assertThat(r[1].at("/site/line").asInt()).isEqualTo(line);
    }

    @Test
    void theCupyPackageKernelRanPastTheOutputOfOpsLine29() throws IOException {
        named("cupy-oob", 65_536, "examples/cupy_pkg/trainer/ops.py", 29);
    }

    @Test
    void theTritonStrideBugRanPastTheLabelBufferOfLine88() throws IOException {
        named("triton-stride", 512, "examples/triton_stride.py", 88);
    }

    @Test
    void theExtensionRanPastTheOutputItAllocatedInTheCallAtLine62() throws IOException {
        NearestAllocation n = firstAccess("inline-ext");
        assertThat(n.distance())
                .as("one float past the end: memcheck's first byte is '1 bytes after'")
                .isEqualTo(1);
        named("inline-ext", 6_400, "examples/buffer/inline_ext_job.py", 62);
    }

    @Test
    void theFarWritesNearestAllocationIsNoneThePyTorchJobMade() throws IOException {
        NearestAllocation n = firstAccess("far");
        assertThat(n.distance()).isGreaterThan(1L << 35);
        assertThat(recorded("far", n.base())).isNull();
    }
}
