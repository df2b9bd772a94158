package io.jenkins.plugins.gpusanitizer.engine.run;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.probe.MemoryVerdict;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeEvidence;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeFindings;
import io.jenkins.plugins.gpusanitizer.engine.probe.ProbeParser;
import java.io.IOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The probe's Python, as the runner installs it, run by real Python processes: the unit tests of
 * test resources probe/test_probe.py (jobs with the whole probe and a stand-in torch: no torch and no GPU here) and
 * probe/test_probe_parts.py (each of the probe's modules alone). Skipped only where there is no python3. Each Python
 * test runs in a process of its own, beside the others: they wait on their jobs' interpreters far more than they
 * compute.
 */
@Execution(ExecutionMode.CONCURRENT)
class ProbeScriptTest {
    @TempDir
    Path dir;

    /**
     * The interpreter that {@code python3} on PATH runs, asked once for all the tests here (the holder's class is
     * initialised once, on first use), or null. The tests start it by its own path: a version manager's shim on
     * PATH (pyenv's is a shell script that starts several more) costs more than the test it starts.
     */
    private static final class Python {
        static final String EXECUTABLE = executable();
    }

    private static boolean hasPython() {
        return Python.EXECUTABLE != null;
    }

    private static String python() {
        return Python.EXECUTABLE;
    }

    private static String executable() {
        try {
            Process p = new ProcessBuilder(
                            "python3", "-c", "import sys; print(sys.executable if sys.version_info >= (3, 8) else '')")
                    .redirectErrorStream(true)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            boolean ok = p.waitFor(300, TimeUnit.SECONDS) && p.exitValue() == 0 && !out.isEmpty();
            return ok && java.nio.file.Files.isExecutable(Path.of(out)) ? out : null;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static String run(Path cwd, java.util.Map<String, String> env, List<String> argv) throws Exception {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(cwd.toFile()).redirectErrorStream(true);
        pb.environment().keySet().removeIf(k -> k.startsWith("GPU_SANITIZE_PROBE") || k.equals("PYTHONPATH"));
        pb.environment().putAll(env);
        pb.environment().put("PYTHONDONTWRITEBYTECODE", "1");
        Process p = pb.start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as(out).isZero();
        return out;
    }

    @Test
    void installedProbeCompiles() throws Exception {
        Assumptions.assumeTrue(hasPython(), "no python3 >= 3.8 on this machine");
        Path probe = new ProbeInstaller(dir.resolve("run")).install();
        assertThat(probe).isEqualTo(dir.resolve("run/probe"));
        List<String> argv = new java.util.ArrayList<>(
                List.of(python(), "-c", "import ast, sys; [ast.parse(open(f).read(), f) for f in sys.argv[1:]]"));
        for (String f : ProbeInstaller.FILES) {
            assertThat(probe.resolve(f)).isRegularFile();
            if (f.endsWith(".py")) {
                argv.add(probe.resolve(f).toString());
            }
        }
        run(dir, java.util.Map.of(), argv);
    }

    /**
     * Every module of the probe's resources is installed, and the census's C source beside them: a part left out would
     * turn the whole probe off.
     */
    @Test
    void everyModuleOfTheProbeIsInstalled() throws IOException {
        Path resources = Path.of(
                System.getProperty("gs.projectRoot", "."),
                "src/main/resources/io/jenkins/plugins/gpusanitizer/engine/run/probe");
        try (var files = java.nio.file.Files.list(resources)) {
            assertThat(files.map(f -> f.getFileName().toString()).filter(f -> f.endsWith(".py") || f.endsWith(".c")))
                    .containsExactlyInAnyOrderElementsOf(ProbeInstaller.FILES);
        }
    }

    /** The Python test files beside the stand-in torch, and the fewest tests each must have. */
    private static final java.util.Map<String, Integer> TEST_FILES =
            java.util.Map.of("test_probe.py", 19, "test_probe_parts.py", 10);

    /**
     * The Python tests of test_probe.py and test_probe_parts.py as the file and {@code Class.test_name}: each runs on
     * its own, beside the others.
     */
    static List<Arguments> pythonTests() throws Exception {
        List<Arguments> tests = new java.util.ArrayList<>();
        for (var file : new java.util.TreeMap<>(TEST_FILES).entrySet()) {
            List<String> names = new java.util.ArrayList<>();
            String testCase = null;
            for (String line : java.nio.file.Files.readAllLines(tests().resolveSibling(file.getKey()))) {
                java.util.regex.Matcher c = java.util.regex.Pattern.compile("^class (\\w+)\\([\\w.]+\\)")
                        .matcher(line);
                java.util.regex.Matcher t = java.util.regex.Pattern.compile("^    def (test_\\w+)\\(self")
                        .matcher(line);
                if (c.find()) {
                    testCase = c.group(1);
                } else if (t.find() && testCase != null) {
                    names.add(testCase + "." + t.group(1));
                }
            }
            assertThat(names).as("the tests of " + file.getKey()).hasSizeGreaterThanOrEqualTo(file.getValue());
            names.forEach(n -> tests.add(Arguments.of(file.getKey(), n)));
        }
        return tests;
    }

    @ParameterizedTest(name = "{0} {1}")
    @MethodSource("pythonTests")
    void installedProbePassesItsTest(String file, String test) throws Exception {
        Assumptions.assumeTrue(hasPython(), "no python3 >= 3.8 on this machine");
        Path probe = new ProbeInstaller(dir.resolve("run")).install();
        String out = run(
                dir,
                java.util.Map.of("PROBE_DIR", probe.toString()),
                List.of(python(), tests().resolveSibling(file).toString(), test));
        assertThat(out).contains("Ran 1 test", "OK").doesNotContain("FAILED");
    }

    /**
     * The regression phase end to end with the stand-in torch: a job that builds an optimizer (which imports
     * torch._dynamo while the probe's thread samples: the torch 2.11 failure) and then keeps every step's
     * logits. The probe's own output, read as the report reads it, names the logits' line, after warm-up
     * against the end, with the series the report charts.
     */
    @Test
    void aLeakBehindAnOptimizerIsAttributedToItsLine() throws Exception {
        Assumptions.assumeTrue(hasPython(), "no python3 >= 3.8 on this machine");
        Path probe = new ProbeInstaller(dir.resolve("run")).install();
        Path resources = tests().getParent();
        Path out = dir.resolve("probe.jsonl");
        String stdout = run(
                dir,
                java.util.Map.of(
                        "PYTHONPATH",
                        probe + java.io.File.pathSeparator + resources.resolve("fake-torch"),
                        "GPU_SANITIZE_PROBE_OUT",
                        out.toString(),
                        "GPU_SANITIZE_PROBE_MODE",
                        "regression",
                        "GPU_SANITIZE_PROBE_INTERVAL",
                        "0.1"),
                List.of(python(), resources.resolve("jobs/train_leak.py").toString()));
        assertThat(stdout).isEqualTo("trained 2\n");

        // the stand-in torch has no GPU, so no curve: say it grows, to check the sites against warm-up
        ProbeFindings f = ProbeEvidence.of(
                List.of(new ProbeParser().parse("regression", out)),
                new MemoryVerdict("growing", "growing", Double.NaN, Double.NaN));
        assertThat(f.notes()).isEmpty();
        assertThat(f.phases()).singleElement().satisfies(p -> {
            assertThat(p.status()).isEqualTo("recorded");
            assertThat(p.errors()).isEmpty();
            assertThat(p.samples()).isGreaterThanOrEqualTo(5);
        });
        ProbeFindings.AllocationGrowth a = f.allocations();
        assertThat(a.growing()).isTrue();
        assertThat(a.endAt()).isEqualTo("exit");
        assertThat(a.warmupSeconds()).isNotNull().isLessThan(a.endSeconds());
        assertThat(a.allocatedAtEnd()).isEqualTo(88L << 20);
        assertThat(a.summary())
                .startsWith("GPU memory grows because tensors allocated at train_leak.py:10 (forward) pile up: "
                        + "40 live blocks, 80.0 MiB at the end against ");
        ProbeFindings.SiteGrowth top = a.sites().get(0);
        assertThat(top.site().line()).isEqualTo(10);
        assertThat(top.stack()).extracting(l -> l.line()).startsWith(18);
        assertThat(top.bytesAtEnd()).isEqualTo(80L << 20);
        assertThat(top.bytesAtWarmup()).isPositive().isLessThan(80L << 20);
        assertThat(a.sites())
                .filteredOn(g -> g.site().line() == 15)
                .singleElement()
                .satisfies(g -> {
                    assertThat(g.bytesAtEnd()).isEqualTo(8L << 20);
                    assertThat(g.growthBytes()).isZero();
                });
        assertThat(a.sites()).noneMatch(g -> g.site().line() == 19); // freed at once
        // what the report's site chart draws: the top sites' live MiB over time
        assertThat(a.series().get(0).label()).isEqualTo("train_leak.py:10 (forward)");
        List<double[]> points = a.series().get(0).points();
        assertThat(points.size()).isGreaterThanOrEqualTo(5);
        for (int i = 1; i < points.size(); i++) {
            assertThat(points.get(i)[0]).isGreaterThanOrEqualTo(points.get(i - 1)[0]);
            assertThat(points.get(i)[1]).isGreaterThanOrEqualTo(points.get(i - 1)[1]);
        }
        assertThat(points.get(points.size() - 1)[1]).isEqualTo(80.0);
        assertThat(a.series().get(1).label()).isEqualTo("train_leak.py:15 (main)");
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
