package io.jenkins.plugins.gpusanitizer.cli;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import io.jenkins.plugins.gpusanitizer.engine.Corpus;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.testing.ChildJvm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** Issue #26, 9 and 10: what a user meets on the console and in the files next to a report. */
class RunUsabilityTest {
    @TempDir
    Path dir;

    private static RunSpec spec(String... args) {
        RunCommand run = new RunCommand();
        CommandLine cl = new CommandLine(run);
        cl.parseArgs(args);
        return run.toSpec(cl);
    }

    /** 10: {@code run -q} prints the verdict line and nothing else (it printed 12 progress lines). */
    @Test
    void quietPrintsTheVerdictLineAlone() throws Exception {
        FakeGpu gpu = new FakeGpu(dir.resolve("g")).farOob();
        Process p = CliJvm.run(
                gpu,
                dir.resolve("run"),
                dir.resolve("console.txt"),
                List.of("-q", "--no-gpu-lock"),
                "python3",
                "train.py",
                "--bug",
                "far");
        assertThat(p.waitFor(300, TimeUnit.SECONDS)).isTrue();
        List<String> lines = Files.readAllLines(dir.resolve("console.txt"));
        assertThat(p.exitValue()).as(String.join("\n", lines)).isEqualTo(ExitCodes.FAIL);
        assertThat(lines).hasSize(1);
        assertThat(lines.get(0)).startsWith("gpu-sanitize: FAIL");
    }

    /** 10: {@code run --help} printed three "[picocli WARN]" lines (an unescaped % in a description). */
    @Test
    void helpPrintsNoPicocliWarning() throws Exception {
        List<String> cmd = ChildJvm.java();
        cmd.addAll(
                List.of("-cp", System.getProperty("java.class.path"), GpuSanitizeCli.class.getName(), "run", "--help"));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(60, TimeUnit.SECONDS)).isTrue();
        assertThat(out).contains("--[no-]probe-memory").doesNotContain("WARN");
        assertThat(out.replaceAll("\\s+", " ")).contains("about 10 % throughput");
    }

    /** 10: {@code --tool memcheck,memcheck} ran twice, the second "followed again (started before a restart)". */
    @Test
    void aToolGivenTwiceIsAUsageError() {
        assertThatThrownBy(() -> spec("--tool", "memcheck,racecheck,memcheck", "--", "python3", "train.py"))
                .isInstanceOf(CommandLine.ParameterException.class)
                .hasMessage("tool memcheck is given twice: each tool runs once");
        CliRunner r = CliRunner.run("run", "--tool", "memcheck,memcheck", "--", "python3", "train.py");
        assertThat(r.exit()).isEqualTo(ExitCodes.USAGE);
        assertThat(r.err()).contains("tool memcheck is given twice");
    }

    /** 4: --gpu chooses, and says so; without it nobody chose (the runner takes CUDA_VISIBLE_DEVICES, else 0). */
    @Test
    void gpuIsAChoiceOnlyWhenGiven() {
        assertThat(spec("--", "python3", "train.py").gpusFrom()).isNull();
        RunSpec given = spec("--gpu", "2,3", "--", "python3", "train.py");
        assertThat(given.gpus()).containsExactly("2", "3");
        assertThat(given.gpusFrom()).isEqualTo("--gpu");
    }

    /**
     * 10: a host frame in a path with spaces (the recorded far-oob log, its Python frames edited to a folder with a
     * blank) gave "launched from :0" and an empty SARIF uri.
     */
    @Test
    void aHostFrameInAPathWithSpacesIsNamed() throws Exception {
        Path log = dir.resolve("memcheck.log");
        Files.writeString(
                log,
                Files.readString(Corpus.file("far-oob/memcheck.log"), StandardCharsets.UTF_8)
                        .replace(" in train_lstm.py:", " in /home/ci/my jobs/train_lstm.py:"));
        assertThat(Files.readString(log)).contains("Host Frame: buggy_scale in /home/ci/my jobs/train_lstm.py:32");
        Path sarif = dir.resolve("out.sarif");
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                log.toString(),
                "--json",
                dir.resolve("r.json").toString(),
                "--sarif",
                sarif.toString());
        assertThat(r.exit()).as(r.out() + r.err()).isEqualTo(ExitCodes.FAIL);
        assertThat(r.out())
                .contains("launched from train_lstm.py:32 (buggy_scale)")
                .doesNotContain(":0");
        JsonNode host =
                CliRunner.json(dir.resolve("r.json")).get("defects").get(0).get("hostLocation");
        assertThat(host.get("file").asText()).isEqualTo("/home/ci/my jobs/train_lstm.py");
        assertThat(host.get("function").asText()).isEqualTo("buggy_scale");
        String s = Files.readString(sarif);
        assertThat(s).contains("\"uri\" : \"/home/ci/my%20jobs/train_lstm.py\"").doesNotContain("\"uri\" : \"\"");
    }

    /** 9: --html site/index.html replaced site/report.css; now the page's stylesheet is index.css. */
    @Test
    void aPageNeverReplacesAnotherFilesStylesheet() throws Exception {
        Path site = Files.createDirectories(dir.resolve("site"));
        Files.writeString(site.resolve("report.css"), "body { color: red }\n");
        CliRunner r = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                Corpus.file("far-oob/memcheck.log").toString(),
                "--html",
                site.resolve("index.html").toString());
        assertThat(r.exit()).as(r.err()).isEqualTo(ExitCodes.FAIL);
        assertThat(site.resolve("report.css")).hasContent("body { color: red }");
        assertThat(Files.readString(site.resolve("index.html")))
                .contains("<link rel=\"stylesheet\" href=\"index.css\">");
        assertThat(Files.readString(site.resolve("index.css"))).contains(".gs-report");
        // written again over its own stylesheet: fine
        assertThat(CliRunner.run(
                                "analyze",
                                "--sanitizer-log",
                                Corpus.file("far-oob/memcheck.log").toString(),
                                "--html",
                                site.resolve("index.html").toString())
                        .exit())
                .isEqualTo(ExitCodes.FAIL);
        // a site's own index.css: refused, one line naming it, nothing written
        Files.writeString(site.resolve("page.css"), "h1 { margin: 0 }\n");
        CliRunner refused = CliRunner.run(
                "analyze",
                "--sanitizer-log",
                Corpus.file("far-oob/memcheck.log").toString(),
                "--html",
                site.resolve("page.html").toString());
        assertThat(refused.exit()).isEqualTo(ExitCodes.ERROR);
        assertThat(refused.err().strip())
                .doesNotContain("\n")
                .contains(site.resolve("page.css").toString());
        assertThat(site.resolve("page.css")).hasContent("h1 { margin: 0 }");
        assertThat(site.resolve("page.html")).doesNotExist();
    }
}
