package io.jenkins.plugins.gpusanitizer.engine.run.process;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A {@code +NAME} variable goes in front of the value the phase's shell has (a container's PATH stays behind it). */
class PhaseScriptPrependTest {
    @TempDir
    Path dir;

    private String run(Map<String, String> env) throws Exception {
        return Processes.output(
                env, "/bin/sh", dir.resolve(PhaseScript.PHASE_SCRIPT).toString());
    }

    @Test
    void thePrependedFolderGoesInFrontOfTheShellsOwnValue() throws Exception {
        PhaseScript.writePhase(
                dir,
                null,
                Map.of(PhaseScript.PREPEND + "PATH", "/run/probe/bin", "PLAIN", "it's 'quoted'"),
                List.of(),
                List.of("sh", "-c", "echo \"$PATH|$PLAIN\""));
        assertThat(Files.readString(dir.resolve(PhaseScript.PHASE_SCRIPT)))
                .contains("export PATH='/run/probe/bin'\"${PATH:+:$PATH}\"\n");
        assertThat(run(Map.of("PATH", "/container/bin:/usr/bin:/bin")))
                .isEqualTo("/run/probe/bin:/container/bin:/usr/bin:/bin|it's 'quoted'\n");
    }
}
