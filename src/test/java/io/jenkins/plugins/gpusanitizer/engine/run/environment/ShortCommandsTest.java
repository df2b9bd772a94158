package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import static org.assertj.core.api.Assertions.assertThat;

import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.LocalProcessStarter;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;

/**
 * The environment check's commands go together into one start of the supervisor (where the job runs in a container,
 * each start is a round trip through its exec), and each still answers for itself: its output, its exit code, its
 * time-out; the tools' lookup answers for every tool at once. Through the real supervisor and /bin/sh.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class ShortCommandsTest {
    private static final Map<String, String> ENV = Map.of("PATH", "/usr/bin:/bin", "HOME", "/nonexistent");

    @TempDir
    Path dir;

    private ShortCommands commands() throws IOException {
        Path run = dir.resolve("run");
        Path supervisor = PhaseScript.installSupervisor(run);
        RunLease lease = new RunLease(run, false);
        lease.take();
        return new ShortCommands(
                new LocalProcessStarter(),
                supervisor,
                run.resolve("env"),
                // a run's own cookie: the supervisors of tests that run at once must not sweep each other's phases
                Processes.cookie("short-commands-test"),
                PhaseProcess.Owner.thisJvm(),
                lease);
    }

    private List<Path> starts() throws IOException {
        try (Stream<Path> folders = Files.list(dir.resolve("run/env/commands"))) {
            return folders.filter(Files::isDirectory).toList();
        }
    }

    @Test
    void commandsRunInOneStartEachWithItsOwnAnswer() throws IOException {
        Path env = dir.resolve("run/env");
        List<CommandOutput> answers = commands()
                .runAll(
                        List.of(
                                new ShortCommands.Command(
                                        List.of("sh", "-c", "echo out; echo err >&2; exit 3"), env.resolve("a.txt")),
                                // words a shell would take apart, quotes, variables: each reaches the tool whole
                                new ShortCommands.Command(
                                        List.of("printf", "%s|", "it's", "$HOME", "a  b", "\"q\"", "`id`"),
                                        env.resolve("b.txt")),
                                new ShortCommands.Command(
                                        List.of(dir.resolve("no such tool").toString(), "--version"),
                                        env.resolve("c.txt"))),
                        ENV,
                        60);

        assertThat(answers).hasSize(3);
        assertThat(answers.get(0).exitCode()).isEqualTo(3);
        assertThat(answers.get(0).output()).isEqualTo("out\nerr\n");
        assertThat(answers.get(1).exitCode()).isZero();
        assertThat(answers.get(1).output()).isEqualTo("it's|$HOME|a  b|\"q\"|`id`|");
        assertThat(answers.get(2).exitCode()).as("not found, as sh says").isEqualTo(127);
        assertThat(answers.get(2).output()).contains("no such tool");
        assertThat(env.resolve("a.txt")).hasContent("out\nerr\n");
        assertThat(env.resolve("b.txt")).hasContent("it's|$HOME|a  b|\"q\"|`id`|");
        assertThat(starts()).as("one start of the supervisor for all three").hasSize(1);
    }

    @Test
    void aCommandThatHangsTimesOutAndThoseAfterItDoNotRun() throws IOException {
        Path env = dir.resolve("run/env");
        Path pid = dir.resolve("hung.pid");
        Path third = dir.resolve("third-ran");
        List<CommandOutput> answers = commands()
                .runAll(
                        List.of(
                                new ShortCommands.Command(List.of("echo", "first"), env.resolve("1.txt")),
                                new ShortCommands.Command(
                                        List.of("sh", "-c", "echo $$ > '" + pid + "'; echo hung; exec sleep 300"),
                                        env.resolve("2.txt")),
                                new ShortCommands.Command(List.of("touch", third.toString()), env.resolve("3.txt"))),
                        ENV,
                        2);

        assertThat(answers.get(0).exitCode()).isZero();
        assertThat(answers.get(0).output()).isEqualTo("first\n");
        assertThat(answers.get(1).exitCode()).as(answers.get(1).output()).isEqualTo(-1);
        assertThat(answers.get(1).output()).startsWith("hung\n").endsWith("(timed out after 2 s)");
        assertThat(answers.get(2).exitCode()).isEqualTo(-2);
        assertThat(answers.get(2).output()).isEqualTo("cannot run touch: sh timed out before it");
        assertThat(third).doesNotExist();
        assertThat(Processes.running(Long.parseLong(Files.readString(pid).trim())))
                .as("the hung command is ended")
                .isFalse();
    }

    @Test
    void oneLookupAnswersForEveryTool() throws IOException {
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path image = Files.createDirectories(dir.resolve("image bin"));
        Path tool = executable(bin.resolve("tool"));
        Path theImagesTool = executable(image.resolve("tool"));
        Files.createDirectories(bin.resolve("folder"));
        Path odd = executable(bin.resolve("it's $odd"));
        Path notExecutable = Files.writeString(bin.resolve("plain"), "");

        List<Set<Path>> found = commands()
                .executables(
                        List.of(
                                // the container's PATH (here: image first) wins over the candidates
                                new ToolLocator.Query("tool", List.of(tool)),
                                new ToolLocator.Query("folder", List.of(bin.resolve("folder"))),
                                new ToolLocator.Query(null, List.of(odd)),
                                new ToolLocator.Query(null, List.of(notExecutable)),
                                new ToolLocator.Query("missing", List.of(bin.resolve("missing")))),
                        Map.of("PATH", image + ":" + bin + ":/usr/bin:/bin"));

        assertThat(found).hasSize(5);
        assertThat(found.get(0)).containsExactly(theImagesTool, tool);
        assertThat(found.get(1)).as("a folder is no tool").isEmpty();
        assertThat(found.get(2)).containsExactly(odd);
        assertThat(found.get(3)).isEmpty();
        assertThat(found.get(4)).isEmpty();
        assertThat(starts()).as("one start of the supervisor for every tool").hasSize(1);
    }

    private static Path executable(Path file) throws IOException {
        Files.writeString(file, "#!/bin/sh\n");
        assertThat(file.toFile().setExecutable(true)).isTrue();
        return file;
    }
}
