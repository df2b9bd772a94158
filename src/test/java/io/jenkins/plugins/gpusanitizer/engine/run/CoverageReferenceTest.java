package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where coverage mode {@code kernels} takes the reference build's kernels from: the Jenkins step hands in those of its
 * reference build's report ({@link RunSpec#referenceKernels()}); the CLI's {@code --reference} report is read
 * otherwise; an unreadable one is said, and the stop decided without it.
 */
class CoverageReferenceTest {
    @TempDir
    Path dir;

    private final List<String> said = new ArrayList<>();
    private final ProgressLog progress = new ProgressLog(said::add, new Secrets(Map.of()));

    @Test
    void theStepsReferenceKernelsComeFirstThenTheCliReport() throws IOException {
        Path broken = Files.writeString(dir.resolve("report.json"), "{ not a report");
        RunSpec handedIn = new RunSpec().compareWith(broken.toString()).referenceKernels(List.of("k1", "k2", "k1"));
        assertThat(ReferenceBuild.kernels(handedIn, progress)).containsExactly("k1", "k2");
        assertThat(said).isEmpty();

        assertThat(ReferenceBuild.kernels(new RunSpec(), progress)).isNull();
        assertThat(ReferenceBuild.kernels(new RunSpec().compareWith(broken.toString()), progress))
                .isNull();
        assertThat(String.join("\n", said))
                .startsWith("[gpu-sanitize] the reference report's kernels could not be read (")
                .endsWith("); the coverage stop is decided without them");
    }
}
