package io.jenkins.plugins.gpusanitizer.engine.parse.text;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.Frame;
import io.jenkins.plugins.gpusanitizer.engine.model.SanitizerRecord;
import io.jenkins.plugins.gpusanitizer.engine.model.Tool;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * compute-sanitizer's text log with full paths ({@code --strip-paths no}, real H200 runs in
 * records/h200-2026-12-04-verify.zip.xz) prints a long native frame's module on a line of its own below it. The oracle is
 * the same log written back into the default form (basenames, the module at the end of the frame's line): both
 * must give every record the same frames, module included (the vendor-library suppressions judge by it).
 */
class FullPathsTextTest {
    static final Path RECORD = Records.unpacked("h200-2026-12-04-verify");
    private static final Pattern MODULE_LINE = Pattern.compile("\\n=========\\s+in (\\S+)(?=\\n)");
    private static final Pattern PATH = Pattern.compile("(?<= in )/\\S*/(?=[^/\\s]+:\\d+)");

    @TempDir
    Path dir;

    /** The default form: the module line joined to the frame above, paths cut to their file names. */
    private static String stripped(String log) {
        String joined =
                MODULE_LINE.matcher(log).replaceAll(m -> Matcher.quoteReplacement(" in " + Frame.baseName(m.group(1))));
        return PATH.matcher(joined).replaceAll("");
    }

    private static List<String> frames(List<SanitizerRecord> records) {
        List<String> out = new ArrayList<>();
        for (SanitizerRecord r : records) {
            StringBuilder s = new StringBuilder(r.message()).append(" |");
            for (Frame f : r.hostFrames()) {
                s.append(' ')
                        .append(f.python() ? "py:" : "native:")
                        .append(f.function())
                        .append(" @ ")
                        .append(f.file() == null ? "" : Frame.baseName(f.file()))
                        .append(':')
                        .append(f.line())
                        .append(" [")
                        .append(f.moduleBaseName())
                        .append(']');
            }
            out.add(s.toString());
        }
        return out;
    }

    @ParameterizedTest
    @ValueSource(strings = {"ddp-clean", "triton-stride", "cudagraph", "ddp-scatter"})
    void aLogWithFullPathsGivesTheFramesOfTheDefaultForm(String runCase) throws Exception {
        Path phase = RECORD.resolve(runCase).resolve("sanitizer-memcheck");
        assertThat(phase.resolve("command.txt")).content().contains("--strip-paths no");
        Path log = phase.resolve("sanitizer.log");
        assertThat(log).content().containsPattern("\\n=========\\s+in /\\S+\\n");
        Path defaultForm = dir.resolve("stripped.log");
        Files.writeString(defaultForm, stripped(Files.readString(log)));
        assertThat(defaultForm).content().doesNotContainPattern("\\n=========\\s+in /\\S+\\n");

        List<SanitizerRecord> full = new ArrayList<>();
        new SanitizerTextParser().parse(log, Tool.MEMCHECK, full::add);
        List<SanitizerRecord> stripped = new ArrayList<>();
        new SanitizerTextParser().parse(defaultForm, Tool.MEMCHECK, stripped::add);

        assertThat(full).isNotEmpty();
        assertThat(full.stream().flatMap(r -> r.hostFrames().stream()).filter(f -> !f.python()))
                .as("every native frame has its module")
                .allSatisfy(f -> assertThat(f.module()).isNotBlank());
        assertThat(frames(full)).containsExactlyElementsOf(frames(stripped));
    }
}
