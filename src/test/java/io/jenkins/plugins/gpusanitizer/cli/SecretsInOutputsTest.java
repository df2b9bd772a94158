package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #26, 3: secrets in the environment quoted by the job's CUDA error text, a {@code --hf-token} argument
 * and a database URL with a password never reach anything the runner writes (report.json/html, JUnit, SARIF,
 * warnings-ng, run.json, command.txt, phase.sh, the console); phase.sh is its owner's alone.
 */
class SecretsInOutputsTest {
    private static final String HF = "hf_EnvS3cretValue42";
    private static final String AWS = "awsS3cretAccessKeyValue99";
    private static final String ARG_TOKEN = "hf_ArgS3cretToken77";
    private static final String DB_PASSWORD = "dbPassw0rdXyz";

    @TempDir
    Path dir;

    @Test
    void secretsFromTheEnvironmentTheJobOutputAndTheArgumentsAreMaskedInEveryOutput() throws Exception {
        String quoted = "an illegal memory access was encountered with token " + HF + " and key " + AWS
                + " at postgres://ci:" + DB_PASSWORD + "@db.internal/runs";
        FakeGpu gpu = new FakeGpu(dir.resolve("g"))
                .farOob()
                .put("blocking.stderr", quote("far-oob/blocking.stderr", quoted))
                .put("async.stderr", quote("far-oob/async.stderr", quoted));
        Path out = dir.resolve("run");
        Path console = dir.resolve("console.txt");
        Process p = CliJvm.run(
                gpu,
                Map.of("HF_TOKEN", HF, "AWS_SECRET_ACCESS_KEY", AWS),
                out,
                console,
                List.of(
                        "--no-gpu-lock",
                        "--junit",
                        dir.resolve("junit.xml").toString(),
                        "--sarif",
                        dir.resolve("report.sarif").toString(),
                        "--warnings-ng",
                        dir.resolve("issues.json").toString(),
                        "--json",
                        dir.resolve("copy.json").toString(),
                        "--html",
                        dir.resolve("site/copy.html").toString()),
                "python3",
                "train.py",
                "--bug",
                "far",
                "--hf-token",
                ARG_TOKEN,
                "--db=postgres://ci:" + DB_PASSWORD + "@db.internal/runs");
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).as("the CLI ended").isTrue();
        String printed = Files.readString(console, StandardCharsets.UTF_8);
        assertThat(p.exitValue()).as(printed).isEqualTo(ExitCodes.FAIL);

        String report = Files.readString(out.resolve("report.json"), StandardCharsets.UTF_8);
        // the job's error text is quoted by the report, masked
        assertThat(report).contains("with token **** and key **** at postgres://ci:****@db.internal/runs");
        List<Path> written = new ArrayList<>(List.of(
                out.resolve("report.json"),
                out.resolve("report.html"),
                out.resolve("run.json"),
                dir.resolve("junit.xml"),
                dir.resolve("report.sarif"),
                dir.resolve("issues.json"),
                dir.resolve("copy.json"),
                dir.resolve("site/copy.html"),
                console));
        try (Stream<Path> files = Files.walk(out)) {
            files.filter(f -> f.getFileName().toString().equals("command.txt")
                            || f.getFileName().toString().equals("phase.sh"))
                    .forEach(written::add);
        }
        assertThat(written.stream().filter(f -> f.endsWith("phase.sh"))).isNotEmpty();
        for (Path f : written) {
            assertThat(Files.readString(f, StandardCharsets.UTF_8))
                    .as(f.toString())
                    .doesNotContain(HF, AWS, ARG_TOKEN, DB_PASSWORD);
        }
        assertThat(Files.readString(out.resolve("blocking/command.txt"), StandardCharsets.UTF_8))
                .contains("--hf-token ****", "--db=postgres://ci:****@db.internal/runs");
        assertThat(Files.readString(out.resolve("blocking/phase.sh"), StandardCharsets.UTF_8))
                .contains("'--hf-token' '****'");
        for (Path f : written) {
            if (f.endsWith("phase.sh")) {
                assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(f)))
                        .as(f.toString())
                        .isEqualTo("rw-------");
            }
        }
        // the job itself got its secrets, and its own output stays raw (the evidence)
        assertThat(gpu.logged("calls.txt")).contains("--hf-token " + ARG_TOKEN);
        assertThat(Files.readString(out.resolve("blocking/stderr.log"), StandardCharsets.UTF_8))
                .contains(HF);
    }

    private static String quote(String corpusFile, String message) throws IOException {
        return Files.readString(Corpus.file(corpusFile), StandardCharsets.UTF_8)
                .replace("an illegal memory access was encountered", message);
    }
}
