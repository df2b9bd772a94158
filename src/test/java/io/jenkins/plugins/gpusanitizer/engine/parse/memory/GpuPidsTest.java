package io.jenkins.plugins.gpusanitizer.engine.parse.memory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.parse.InputException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** gpu-pids.txt as memory-sampler.sh writes it. */
class GpuPidsTest {
    @TempDir
    Path dir;

    @Test
    void theHostNamespaceWithTheJobsProcessAndAnother() {
        GpuPids pids = GpuPids.read(ProcessMemoryCsvParserTest.beside("gpu-pids-handmade.txt"));
        assertThat(pids.hostPidNamespace()).isTrue();
        assertThat(pids.ownPidNamespace()).isFalse();
        assertThat(pids.ours()).containsExactly(51377L);
        assertThat(pids.others()).containsExactly(51234L);
        assertThat(pids.gone()).isEmpty();
        assertThat(pids.badLines()).isZero();
        assertThat(pids.appsSamplerExit()).isNull();
    }

    @Test
    void aContainersOwnNamespace() {
        GpuPids pids = GpuPids.read(ProcessMemoryCsvParserTest.beside("gpu-pids-container-handmade.txt"));
        assertThat(pids.ownPidNamespace()).isTrue();
        assertThat(pids.ours()).isEmpty();
        assertThat(pids.gone()).containsExactly(51234L, 51377L);
    }

    @Test
    void aCookieMatchIsOursAndNonsenseIsCounted() {
        GpuPids pids = GpuPids.read(Corpus.write(
                dir,
                "gpu-pids.txt",
                "pid-namespace unknown\n7 ours cookie\n8 mine\nx ours\n-3 other\n\napps-sampler-exit 4\n"));
        assertThat(pids.pidNamespace()).isEqualTo("unknown");
        assertThat(pids.hostPidNamespace()).isFalse();
        assertThat(pids.ownPidNamespace()).as("unknown is not a container").isFalse();
        assertThat(pids.ours()).containsExactly(7L);
        assertThat(pids.badLines()).isEqualTo(3);
        assertThat(pids.appsSamplerExit()).isEqualTo("4");
    }

    @Test
    void aMissingFileIsAOneLineErrorNamingIt() {
        Path missing = dir.resolve("gpu-pids.txt");
        assertThatThrownBy(() -> GpuPids.read(missing))
                .isInstanceOf(InputException.class)
                .hasMessageContaining(missing.toString())
                .hasMessageContaining("no such file");
    }
}
