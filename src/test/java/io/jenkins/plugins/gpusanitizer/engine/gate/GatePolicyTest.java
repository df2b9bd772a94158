package io.jenkins.plugins.gpusanitizer.engine.gate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.diagnosis.MemoryCurve;
import org.junit.jupiter.api.Test;

class GatePolicyTest {
    @Test
    void fillHorizonDurations() {
        assertThat(GatePolicy.parseHours("7d")).isEqualTo(168);
        assertThat(GatePolicy.parseHours("1w")).isEqualTo(168);
        assertThat(GatePolicy.parseHours("25h")).isEqualTo(25);
        assertThat(GatePolicy.parseHours(" 36 ")).isEqualTo(36);
        assertThat(GatePolicy.parseHours("90m")).isEqualTo(1.5);
        assertThat(GatePolicy.parseHours("1800s")).isEqualTo(0.5);
        assertThat(GatePolicy.parseHours("2.5D")).isEqualTo(60);
        for (String bad : new String[] {"", "0", "0h", "-1d", "7x", "7dd", "NaN", "Infinity", "1e3", "d"}) {
            assertThatThrownBy(() -> GatePolicy.parseHours(bad))
                    .as(bad)
                    .hasMessageContaining("is not a positive duration");
        }
        assertThatThrownBy(() -> GatePolicy.parseHours(null)).hasMessageContaining("is not a positive duration");
    }

    @Test
    void memoryPolicyDefaultsAndOverrides() {
        assertThat(GatePolicy.defaults().memoryPolicy()).isEqualTo(MemoryCurve.Policy.DEFAULT);
        assertThat(GatePolicy.defaults().memoryPolicy().fillHorizonHours()).isEqualTo(168);
        assertThat(GatePolicy.defaults().memoryPolicy().minJudgedSeconds()).isEqualTo(10);
        GatePolicy p = GatePolicy.builder()
                .memoryFillHorizonHours(24)
                .memoryMinJudgedSeconds(60)
                .build();
        assertThat(p.memoryPolicy()).isEqualTo(new MemoryCurve.Policy(60, 24));
    }
}
