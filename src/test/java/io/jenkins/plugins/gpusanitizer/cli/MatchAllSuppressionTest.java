package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Issue #25, 9: a suppression whose pattern is empty ({@code kernel=$UNSET} in CI) or matches every
 * text suppressed the real H200 out-of-bounds write (near-oob, every record printed) and passed. It is a usage error, like {@code
 * reason=x} alone.
 */
class MatchAllSuppressionTest {
    @TempDir
    Path dir;

    static String nearOob() {
        return Corpus.file("near-oob/memcheck-nocache.log").toString();
    }

    private CliRunner analyze(String suppression) {
        return CliRunner.run(
                "analyze",
                "--json",
                dir.resolve("report.json").toString(),
                "--sanitizer-log",
                nearOob(),
                "--suppress",
                suppression);
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "kernel=",
                "frame=",
                "message=",
                "kernel= ",
                "kernel=x*",
                "kernel=.*",
                "message=(?s).*",
                "frame=|scale",
                "tool=memcheck;kernel=",
                "kernel=scale_shift;reason=",
                "id=;kernel=scale_shift"
            })
    void anEmptyOrMatchAllPatternIsAUsageError(String suppression) {
        CliRunner r = analyze(suppression);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(64);
        assertThat(r.err())
                .as("one line naming the suppression")
                .contains("suppression '" + suppression + "'")
                .containsAnyOf("is empty", "matches every");
        assertThat(dir.resolve("report.json")).doesNotExist();
    }

    @Test
    void aNarrowPatternStillSuppresses() {
        CliRunner r = analyze("kernel=^scale_shift$;reason=BUG-1");
        assertThat(r.exit()).as(r.out() + r.err()).isZero();
        CliRunner wide = analyze("kernel=^(?!at::native);reason=everything outside ATen, on purpose");
        assertThat(wide.exit()).as(wide.out() + wide.err()).isZero();
    }
}
