package io.jenkins.plugins.gpusanitizer.engine.report;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The page's "What each run did": the DDP tutorial's runs as the H100 record has them (KernelsModeH100RecordTest). */
class WorkSectionTest {
    private static WorkJson run(String name, long steps, Double firstWork) {
        return new WorkJson(
                name,
                true,
                2,
                1L,
                steps,
                null,
                null,
                null,
                null,
                null,
                steps,
                "counted",
                null,
                List.of(),
                "by-itself",
                false,
                1L,
                0L,
                firstWork);
    }

    private static String page(WorkJson... runs) {
        StringBuilder h = new StringBuilder();
        WorkSection.append(h, List.of(runs), null);
        return h.toString();
    }

    @Test
    void eachRunSaysHowLongItTookToItsFirstStepOrThatItIsNotKnown() {
        String html =
                page(run("sanitizer-memcheck", 3, 38.0), run("blocking", 320, 14.9), run("regression", 320, null));

        assertThat(html).contains("<th>first step after</th>");
        assertThat(html).contains("<td>38.0 s</td>").contains("<td>14.9 s</td>").contains("<td>not known</td>");
    }

    @Test
    void aRunThatWasNotCountedSpansTheCountedColumnsWithTheStepColumn() {
        WorkJson silent = new WorkJson(
                "blocking",
                false,
                0,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                null,
                "silent",
                null,
                List.of(),
                "stopped",
                false,
                null,
                null,
                null);

        String html = page(silent);

        assertThat(html).contains("<td colspan=\"5\">");
        // every row has as many cells as the header: 9 columns
        assertThat(html.split("<th>", -1)).hasSize(10);
    }
}
