package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class TrendChartTest {
    @Test
    void barsPerBuildStackedByToolWithTheVerdictAndEscapedLabels() {
        String svg = TrendChart.svg(List.of(
                new TrendChart.Point("#1", 3, 1, "FAIL", Map.of("memcheck", 2, "racecheck", 1)),
                new TrendChart.Point("#2 <img src=x>", 0, 1, "PASS", Map.of())));
        assertThat(svg).startsWith("<svg").endsWith("</svg>");
        assertThat(svg).contains("gs-tool-memcheck", "gs-tool-racecheck", "gs-bar-fail gs-bar-outline", "gs-bar-pass");
        assertThat(svg)
                .contains("#1: 2 memcheck")
                .contains("#2 &lt;img src=x&gt;")
                .doesNotContain("<img");
        // build #1: suppressed, two tools, the verdict outline; build #2: suppressed, the verdict bar
        assertThat(svg.split("<rect", -1)).hasSize(1 + 4 + 2);
    }
}
