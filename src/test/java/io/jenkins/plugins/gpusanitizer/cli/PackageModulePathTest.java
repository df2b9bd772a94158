package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.report.CheckRun;
import io.jenkins.plugins.gpusanitizer.engine.report.ReportJson;
import io.jenkins.plugins.gpusanitizer.results.Summaries;
import io.jenkins.plugins.gpusanitizer.testing.Records;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #25, 4: a kernel launched from a package module is named by its path under the working directory
 * ({@code examples/cupy_pkg/trainer/ops.py:32}, not {@code ops.py:32}) in every sentence and on the page, a
 * library frame by its base name; the JSON keeps the full paths and the fingerprint stays base name and line.
 * The run directory is the recorded far-oob run with its Python files moved into a package module
 * (corpus/package-path/README.md); the real run of examples/h200 with the job in /work/main checks the same.
 */
class PackageModulePathTest {
    static final String LAB = "/home/ci/workspace/lab/train_lstm.py";
    static final String SITE = "/opt/torch/.venv/lib/python3.12/site-packages/torch/nn/modules/";
    static final String OPS = "examples/cupy_pkg/trainer/ops.py";
    static final String TRAIN = "examples/cupy_pkg/train.py";

    @TempDir
    Path dir;

    /** The far-oob run as if {@code buggy_scale} lived in {@code trainer/ops.py} of a job run from {@code work}. */
    static Path packagePathRun(Path dir, String work) throws IOException {
        Path run = dir.resolve("cupy-pkg");
        String ops = work + "/" + OPS;
        String train = work + "/" + TRAIN;
        write(
                run.resolve("run.json"),
                read(Corpus.resource("/corpus/package-path/run.json")).replace("/work/ws", work));
        write(
                run.resolve("sanitizer-memcheck/sanitizer.xml"),
                read(Corpus.file("far-oob/memcheck.xml"))
                        .replace(
                                "<func>buggy_scale</func>\n        <path>" + LAB,
                                "<func>buggy_scale</func>\n        <path>" + ops)
                        .replace(LAB, train));
        write(
                run.resolve("sanitizer-memcheck/sanitizer.log"),
                read(Corpus.file("far-oob/memcheck.log"))
                        .replace(" buggy_scale in train_lstm.py:", " buggy_scale in " + ops + ":")
                        .replace(" in train_lstm.py:", " in " + train + ":")
                        .replace(" in module.py:", " in " + SITE + "module.py:"));
        for (String[] log : new String[][] {{"blocking.stderr", "blocking"}, {"async.stderr", "regression"}}) {
            write(
                    run.resolve(log[1]).resolve("stderr.log"),
                    read(Corpus.file("far-oob/" + log[0]))
                            .replace(
                                    "File \"" + LAB + "\", line 32, in buggy_scale",
                                    "File \"" + ops + "\", line 32, in buggy_scale")
                            .replace(LAB, train));
        }
        return run;
    }

    private record Analysed(CliRunner cli, JsonNode json, String html, String sarif) {}

    private Analysed analyze(String... input) throws IOException {
        Path out = Files.createDirectories(dir.resolve("out"));
        String[] outputs = {
            "--json", out.resolve("r.json").toString(),
            "--html", out.resolve("r.html").toString(),
            "--sarif", out.resolve("r.sarif").toString()
        };
        String[] args = new String[1 + input.length + outputs.length];
        args[0] = "analyze";
        System.arraycopy(input, 0, args, 1, input.length);
        System.arraycopy(outputs, 0, args, 1 + input.length, outputs.length);
        CliRunner r = CliRunner.run(args);
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.FAIL);
        return new Analysed(
                r, CliRunner.json(out.resolve("r.json")), read(out.resolve("r.html")), read(out.resolve("r.sarif")));
    }

    private static String reasons(JsonNode r) {
        StringBuilder sb = new StringBuilder();
        r.get("reasons").forEach(x -> sb.append(x.get("message").asText()).append('\n'));
        return sb.toString();
    }

    @Test
    void theLaunchInAPackageModuleIsNamedByItsPathUnderTheWorkingDirectory() throws IOException {
        Analysed a = analyze("--run-dir", packagePathRun(dir, "/work/ws").toString());
        assertThat(reasons(a.json()))
                .contains("in kernel scale_shift, launched from " + OPS + ":32 (buggy_scale) (100 records)")
                .contains("blocking run crashed: an illegal memory access was encountered at " + OPS
                        + ":32 (buggy_scale)")
                .contains("async run crashed: an illegal memory access was encountered at " + TRAIN + ":99")
                .doesNotContain(" ops.py:")
                .doesNotContain("/work/ws");
        JsonNode diagnosis = a.json().get("diagnosis");
        assertThat(diagnosis.get("summary").asText())
                .startsWith("The normal run reported the error at " + TRAIN + ":99 (")
                .contains("; the blocking run shows it at " + OPS + ":32 in buggy_scale (`k(((n + 255) // 256,)");
        assertThat(diagnosis.get("notes").toString())
                .contains("compute-sanitizer confirms: kernel scale_shift was launched from " + OPS
                        + ":32 in buggy_scale.");
        assertThat(a.cli().out()).contains("launched from " + OPS + ":32 (buggy_scale)");

        // the JSON keeps the full path; consumers relativize (the check's annotation is at the file in the repository)
        JsonNode defect = a.json().get("defects").get(0);
        assertThat(defect.get("hostLocation").get("file").asText()).isEqualTo("/work/ws/" + OPS);
        assertThat(diagnosis.get("faultAt").get("file").asText()).isEqualTo("/work/ws/" + OPS);
        assertThat(CheckRun.of(ReportJson.read(dir.resolve("out/r.json")), "GPU Sanitizer")
                        .annotations())
                .singleElement()
                .satisfies(x -> assertThat(x.path() + ":" + x.line()).isEqualTo(OPS + ":32"));
        assertThat(a.sarif()).contains("\"uri\" : \"/work/ws/" + OPS + "\"");
        // the line the build keeps and a failed step names
        assertThat(Summaries.of(ReportJson.read(dir.resolve("out/r.json")), "/r")
                        .faultAt())
                .isEqualTo(OPS + ":32 (buggy_scale)");

        // the page: the fault line, the defect and its first user frame by their path, a library frame by its name
        assertThat(a.html())
                .contains("<td><code>" + OPS + ":32 in buggy_scale</code></td>")
                .contains(" from <code>" + OPS + ":32</code>")
                .contains("<dt>first user frame</dt><dd>" + OPS + ":32 in buggy_scale</dd>")
                .contains("<code>forward in " + TRAIN + ":63</code>")
                .contains("<code>_call_impl in module.py:1790</code>")
                .contains("<code>__pyx_f_4cupy_4cuda_8function__launch [clone .constprop.124] in function.cpp:10804")
                .doesNotContain("site-packages/torch")
                .doesNotContain(">/work/ws/");
    }

    /** Issue #26, 10: a host frame in a path with spaces once gave "launched from :0" and an empty SARIF uri. */
    @Test
    void aWorkingDirectoryWithABlankNamesTheSameLines() throws IOException {
        Analysed a = analyze("--run-dir", packagePathRun(dir, "/work/my ws").toString());
        assertThat(reasons(a.json()))
                .contains("launched from " + OPS + ":32 (buggy_scale)")
                .doesNotContain(":0 ");
        assertThat(a.json()
                        .get("defects")
                        .get(0)
                        .get("hostLocation")
                        .get("file")
                        .asText())
                .isEqualTo("/work/my ws/" + OPS);
        assertThat(a.html()).contains(" from <code>" + OPS + ":32</code>");
        assertThat(a.sarif())
                .contains("\"uri\" : \"/work/my%20ws/" + OPS + "\"")
                .doesNotContain("\"uri\" : \"\"");
    }

    /** Where the run does not say its working directory (loose files, no run.json), files keep their base names. */
    @Test
    void looseFilesWithoutAWorkingDirectoryKeepBaseNames() throws IOException {
        Path run = packagePathRun(dir, "/work/ws");
        Analysed a = analyze(
                "--sanitizer-xml",
                        run.resolve("sanitizer-memcheck/sanitizer.xml").toString(),
                "--sanitizer-log",
                        run.resolve("sanitizer-memcheck/sanitizer.log").toString(),
                "--blocking-log", run.resolve("blocking/stderr.log").toString(),
                "--async-log", run.resolve("regression/stderr.log").toString());
        assertThat(reasons(a.json())).contains("launched from ops.py:32 (buggy_scale)");
        assertThat(a.json().get("diagnosis").get("summary").asText())
                .contains("the blocking run shows it at ops.py:32 in buggy_scale");
        assertThat(a.html()).contains(" from <code>ops.py:32</code>");
        assertThat(a.json()
                        .get("defects")
                        .get(0)
                        .get("hostLocation")
                        .get("file")
                        .asText())
                .isEqualTo("/work/ws/" + OPS);
    }

    /** The fingerprint is base name and line: the same defect from any working directory, or none. */
    @Test
    void theFingerprintDoesNotDependOnTheWorkingDirectory() throws IOException {
        String ws = analyze(
                        "--run-dir",
                        packagePathRun(dir.resolve("a"), "/work/ws").toString())
                .json()
                .get("defects")
                .get(0)
                .get("id")
                .asText();
        String blank = analyze(
                        "--run-dir",
                        packagePathRun(dir.resolve("b"), "/srv/my jobs/ci").toString())
                .json()
                .get("defects")
                .get(0)
                .get("id")
                .asText();
        Path run = packagePathRun(dir.resolve("c"), "/work/ws");
        String loose = analyze(
                        "--sanitizer-xml",
                        run.resolve("sanitizer-memcheck/sanitizer.xml").toString())
                .json()
                .get("defects")
                .get(0)
                .get("id")
                .asText();
        assertThat(blank).isEqualTo(ws);
        assertThat(loose).isEqualTo(ws);
    }

    /**
     * The real run (records/h200-2026-12-04c.zip.xz, far: examples/lstm_job.py run from /work/main on the H200):
     * its sentences and page name the job's file by its path in the repository.
     */
    @Test
    void theRecordedH200RunNamesTheJobByItsPathInTheRepository() throws IOException {
        Path run = Records.unzip("h200-2026-12-04c", dir.resolve("rec")).resolve("after/far");
        Analysed a = analyze("--run-dir", run.toString());
        assertThat(reasons(a.json()))
                .contains("memcheck: Invalid __global__ write of size 4 bytes in kernel fused_scale, launched from "
                        + "examples/lstm_job.py:44 (fused_scale) (200 records)")
                .contains("blocking run crashed: an illegal memory access was encountered at examples/lstm_job.py:44"
                        + " (fused_scale)");
        assertThat(a.json().get("diagnosis").get("summary").asText())
                .startsWith("The normal run reported the error at examples/lstm_job.py:90 in main")
                .contains("the blocking run shows it at examples/lstm_job.py:44 in fused_scale");
        assertThat(a.json()
                        .get("defects")
                        .get(0)
                        .get("hostLocation")
                        .get("file")
                        .asText())
                .isEqualTo("/work/main/examples/lstm_job.py");
        assertThat(a.html())
                .contains(" from <code>examples/lstm_job.py:44</code>")
                .contains("<code>_call_impl in module.py:1790</code>");
    }

    private static String read(Path p) throws IOException {
        return Files.readString(p, StandardCharsets.UTF_8);
    }

    private static void write(Path p, String text) throws IOException {
        Files.createDirectories(p.getParent());
        Files.writeString(p, text, StandardCharsets.UTF_8);
    }
}
