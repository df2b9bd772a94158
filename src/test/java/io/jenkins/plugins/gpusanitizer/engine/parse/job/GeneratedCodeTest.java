package io.jenkins.plugins.gpusanitizer.engine.parse.job;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.model.SourceLocation;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Inductor's generated code: what is copied, and the model line read from its comments. */
class GeneratedCodeTest {
    @TempDir
    Path dir;

    private static CudaFailure naming(List<String> files) {
        return CudaFailure.builder()
                .source("stderr.log")
                .errorClass(CudaErrorClass.DEVICE_ASSERT)
                .generatedFiles(files)
                .build();
    }

    @Test
    void onlyBoundedRegularFilesUnderACacheAreCopied() throws IOException {
        Path cache = Files.createDirectories(dir.resolve("torchinductor_ci/ab"));
        Path small = Files.writeString(cache.resolve("cab1.py"), "x = 1\n");
        Path big = cache.resolve("cab2.py");
        Files.write(big, new byte[(int) GeneratedCode.MAX_FILE_BYTES + 1]);
        Path link = cache.resolve("cab3.py");
        Files.createSymbolicLink(link, small);
        Path outside = Files.writeString(dir.resolve("other.py"), "y = 2\n");
        Path phase = Files.createDirectories(dir.resolve("run/blocking"));
        List<Path> copied = GeneratedCode.copy(
                naming(List.of(
                        small.toString(), big.toString(), link.toString(), outside.toString(), cache + "/gone.py")),
                phase);
        assertThat(copied).containsExactly(phase.resolve("generated/cab1.py"));
        assertThat(phase.resolve("generated/files.tsv")).hasContent(small + "\tcab1.py");
    }

    @Test
    void fxOriginCommentAboveTheKernelIsTheModelLine() throws IOException {
        Path f = Files.writeString(dir.resolve("c.py"), """
                # kernel path: /tmp/torchinductor_ci/aa/caa.py
                # File: /w/model.py:10 in forward, code: x = self.other(x)
                triton_poi_fused_0 = async_compile.triton('triton_poi_fused_0', '''
                ''')
                # kernel path: /tmp/torchinductor_ci/bb/cbb.py
                # File: /opt/torch/.venv/lib/python3.12/site-packages/torch/nn/functional.py:2567 in embedding, code: return torch.embedding(weight, input)
                # File: /w/model.py:15 in forward, code: y = self.table[idx]
                triton_poi_fused_1 = async_compile.triton('triton_poi_fused_1', '''
                ''')
                """);
        SourceLocation l = GeneratedCode.provenanceAbove(f, 8);
        assertThat(l.file()).isEqualTo("/w/model.py");
        assertThat(l.line()).isEqualTo(15);
        assertThat(l.function()).isEqualTo("forward");
        assertThat(l.code()).isEqualTo("y = self.table[idx]");
        // a kernel without origin comments does not borrow the previous kernel's
        Path g = Files.writeString(
                dir.resolve("d.py"),
                "# File: /w/model.py:10 in forward, code: x = 1\n# kernel path: /tmp/x/cc/ccc.py\n# no origin\nrun()\n");
        assertThat(GeneratedCode.provenanceAbove(g, 4)).isNull();
    }
}
