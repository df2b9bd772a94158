package io.jenkins.plugins.gpusanitizer.engine.model;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.BufferEvidence.Placement;
import org.junit.jupiter.api.Test;

class BufferEvidenceTest {
    private static final WorkPaths WS = WorkPaths.of("/ws");
    private static final SourceLocation OPS = new SourceLocation("/ws/trainer/ops.py", 27, "jitter", null);

    private static String line(Placement p, long size, long distance, String shape, String why) {
        return new BufferEvidence(
                        p, "0x10", "0x0", size, distance, p == Placement.UNNAMED ? null : OPS, shape, null, why, null)
                .described(WS)
                .summary();
    }

    @Test
    void theIssuesExampleLine() {
        assertThat(line(Placement.AFTER, 6400, 1, "float32 [1600]", null))
                .isEqualTo(
                        "1 byte past the end of a 6,400-byte buffer (float32 [1600]) allocated at trainer/ops.py:27 (jitter)");
    }

    @Test
    void beforeAndInsideSayWhereTheAddressIs() {
        assertThat(line(Placement.BEFORE, 1024, 8, null, null))
                .isEqualTo("8 bytes before the start of a 1,024-byte buffer allocated at trainer/ops.py:27 (jitter)");
        assertThat(line(Placement.INSIDE, 4, 1, null, null))
                .isEqualTo("misaligned, inside a 4-byte buffer allocated at trainer/ops.py:27 (jitter), 1 byte from its"
                        + " start");
    }

    @Test
    void aFarAccessDoesNotClaimTheNearestAllocationWasMeant() {
        assertThat(line(Placement.AFTER, 512, 274_739_537_409L, null, null))
                .startsWith("274,739,537,409 bytes past the end of the nearest allocation, a 512-byte buffer")
                .endsWith("too far from it to say the access meant that buffer");
    }

    @Test
    void anUnnamedAllocationSaysWhy() {
        assertThat(line(Placement.UNNAMED, 6400, 1, null, "why")).isEqualTo("why");
    }
}
