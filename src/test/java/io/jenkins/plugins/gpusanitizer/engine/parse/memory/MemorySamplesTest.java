package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class MemorySamplesTest {
    @Test
    void pastTheLimitNeighboursMergeIntoTheHigherOne() {
        MemorySamples s = new MemorySamples("0", 8);
        for (int i = 0; i < 8; i++) {
            s.add(i, i == 5 ? 100 : i, 50);
        }
        assertThat(s.size()).isEqualTo(8);
        s.add(8, 8, 50); // halves: (0,1) (2,3) (4,5) (6,7), then 8 starts a run of two
        assertThat(s.size()).isEqualTo(5);
        assertThat(s.used(0)).isEqualTo(1);
        assertThat(s.used(2)).isEqualTo(100);
        assertThat(s.time(2)).isEqualTo(5);
        assertThat(s.used(4)).isEqualTo(8);
        s.add(9, 3, 50); // merged into the last kept sample, which stays the higher
        assertThat(s.size()).isEqualTo(5);
        assertThat(s.used(4)).isEqualTo(8);
        s.add(10, 10, 50);
        assertThat(s.size()).isEqualTo(6);
        for (int i = 11; i < 1000; i++) {
            s.add(i, i, 50);
        }
        assertThat(s.size()).isLessThanOrEqualTo(8);
        assertThat(s.rawSamples()).isEqualTo(1000);
        assertThat(s.maxUsed()).isEqualTo(999);
        assertThat(s.time(s.size() - 1)).isEqualTo(999);
        assertThat(s.totalMiB()).isEqualTo(50);
        for (int i = 1; i < s.size(); i++) {
            assertThat(s.time(i)).isGreaterThan(s.time(i - 1));
        }
    }
}
