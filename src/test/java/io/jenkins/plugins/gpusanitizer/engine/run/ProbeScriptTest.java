package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The probe's Python, as the runner installs it, run by real Python processes: the unit tests of
 * test resources probe/test_probe.py with a stand-in torch (no torch and no GPU here). Skipped only
 * where there is no python3.
 */
class ProbeScriptTest {
    @TempDir
    Path dir;

    private static boolean hasPython() {
        try {
            Process p = new ProcessBuilder(
                            "python3", "-c", "import sys; sys.exit(0 if sys.version_info >= (3, 8) else 1)")
                    .redirectErrorStream(true)
                    .start();
            return p.waitFor(30, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (IOException e) {
            return false;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static String run(Path cwd, java.util.Map<String, String> env, List<String> argv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void installedProbeCompilesAndPassesItsTests() throws Exception {
        Assumptions.assumeTrue(hasPython(), "no python3 >= 3.8 on this machine");
        Path probe = new ProbeInstaller(dir.resolve("run")).install();
        assertThat(probe).isEqualTo(dir.resolve("run/probe"));
        assertThat(probe.resolve("sitecustomize.py")).isRegularFile();
        assertThat(probe.resolve("gpu_sanitize_probe.py")).isRegularFile();
        run(
                dir,
                java.util.Map.of(),
                List.of(
                        "python3",
                        "-c",
                        "import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]",
                        probe.resolve("sitecustomize.py").toString(),
                        probe.resolve("gpu_sanitize_probe.py").toString()));
        Path tests = tests();
        String out = run(dir, java.util.Map.of("PROBE_DIR", probe.toString()), List.of("python3", tests.toString()));
        assertThat(out).contains("OK").doesNotContain("FAILED");
    }

    @Test
    void phaseEnvironmentPutsTheProbeFirstAndKeepsTheJobsPath() throws IOException {
        ProbeInstaller installer = new ProbeInstaller(dir);
        var env = installer.env(Phase.REGRESSION, dir.resolve("regression"), "/job/lib:/other");
        assertThat(env)
                .containsEntry("PYTHONPATH", dir.resolve("probe") + ":/job/lib:/other")
                .containsEntry(
                        "GPU_SANITIZE_PROBE_OUT",
                        dir.resolve("regression/probe.jsonl").toString())
                .containsEntry("GPU_SANITIZE_PROBE_MODE", "regression");
        assertThat(installer.env(Phase.BLOCKING, dir.resolve("blocking"), null))
                .containsEntry("PYTHONPATH", dir.resolve("probe").toString())
                .containsEntry("GPU_SANITIZE_PROBE_MODE", "blocking");
    }

    private static Path tests() throws URISyntaxException {
        return Path.of(ProbeScriptTest.class.getResource("/probe/test_probe.py").toURI());
    }
}
