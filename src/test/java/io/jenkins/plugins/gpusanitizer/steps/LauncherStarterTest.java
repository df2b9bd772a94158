package io.jenkins.plugins.gpusanitizer.steps;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.mockito.Mockito.inOrder;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.verify;

import hudson.Launcher;
import io.jenkins.plugins.gpusanitizer.engine.gate.Verdict;
import io.jenkins.plugins.gpusanitizer.engine.report.Report;
import io.jenkins.plugins.gpusanitizer.engine.run.FakeGpu;
import io.jenkins.plugins.gpusanitizer.engine.run.RunSpec;
import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.Console;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.DockerInside;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.KubernetesContainer;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.Launch;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.PlainAgent;
import io.jenkins.plugins.gpusanitizer.steps.LauncherReplays.Replay;
import io.jenkins.plugins.gpusanitizer.testing.FileWait;
import io.jenkins.plugins.gpusanitizer.testing.Processes;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * {@link LauncherStarter} through the three launchers a step meets — a plain agent, {@code
 * docker.image().inside}, Kubernetes {@code container()} — each replayed from its source in {@link
 * LauncherReplays} and run through a real {@code /bin/sh}: the supervisor starts detached (the launch
 * returns before it ends), with exactly its argv, its working directory and the job's variables, whatever
 * they hold; and {@code killAll} ends it through the launcher's own kill.
 */
@Execution(ExecutionMode.CONCURRENT) // real processes that mostly wait: the tests overlap
class LauncherStarterTest {
    @TempDir
    Path dir;

    /** The agent JVM's own variables: what a plain agent expands {@code $HOME} or {@code ${X}} to. */
    static final Map<String, String> AGENT =
            Map.of("PATH", "/usr/bin:/bin", "HOME", "/home/agent", "X", "agent-x", "LANG", "C.UTF-8");
    /** The container's own variables. */
    static final Map<String, String> CONTAINER =
            Map.of("PATH", "/usr/bin:/bin", "HOME", "/root-of-container", "LANG", "C.UTF-8");

    /** Values a job's variables (parameters, secrets, paths) may hold. */
    static Map<String, String> trickyEnv(Path home) {
        Map<String, String> env = new LinkedHashMap<>();
        env.put("PATH", "/usr/bin:/bin");
        env.put("HOME", home.toString());
        env.put("V_HOME", "$HOME");
        env.put("V_PID", "$$");
        env.put("V_BRACED", "${X}");
        env.put("V_DOUBLED", "a$$X$$$HOME");
        env.put("V_BACKTICK", "`id -u` $(id -u)");
        env.put("V_QUOTES", "it's \"quoted\" '' \"\"");
        env.put("V_SPACES", "  two  spaces  ");
        env.put("V_NEWLINES", "line 1\nline 2\n\n");
        env.put("V_BACKSLASH", "C:\\dir\\$HOME\\n\\\\\\");
        env.put("V_PERCENT", "100% %s %d %% %n");
        env.put("V_UNICODE", "Grüße — 日本語 🚀");
        env.put("V_EQUALS", "a=b==c");
        env.put("V_EMPTY", "");
        env.put("V_DASH", "-n");
        return env;
    }

    /** The "supervisor": waits for go (so it must outlive the launch), then records what it got. */
    static final String RECORDER = String.join(
            "\n",
            "i=0",
            "while [ ! -e \"$1/go\" ]; do i=$((i + 1)); [ \"$i\" -gt 600 ] && exit 3; sleep 0.05; done",
            "printf '%s\\0' \"$0\" \"$@\" > \"$1/argv.bin\"",
            "pwd -P > \"$1/pwd.txt\"",
            "cat /proc/$$/environ > \"$1/environ.bin\"",
            "echo \"$$\" > \"$1/done\"",
            "");

    record Setup(Replay replay, Console console, List<Launch> launches, Launcher launcher) {}

    /** The three launchers; {@code ws} is the workspace (docker's {@code -w}, mounted at the same path). */
    static Setup setup(String kind, Path ws, Path containerHome) throws Exception {
        Console console = new Console();
        PlainAgent agent = new PlainAgent(AGENT, console);
        Replay replay =
                switch (kind) {
                    case "plain" -> agent;
                    case "docker" -> new DockerInside(agent, AGENT, ws.toString(), CONTAINER);
                    case "kubernetes" -> new KubernetesContainer(AGENT, CONTAINER, containerHome.toFile(), console);
                    default -> throw new IllegalArgumentException(kind);
                };
        List<Launch> launches = new CopyOnWriteArrayList<>();
        return new Setup(replay, console, launches, LauncherReplays.launcher(replay, launches));
    }

    static Stream<String> launchers() {
        return Stream.of("plain", "docker", "kubernetes");
    }

    private static LauncherStarter starter(Setup s, String cookie) {
        return new LauncherStarter(
                s.launcher(), s.console().listener, path -> Files.createDirectories(Path.of(path)), cookie);
    }

    /** Waits (bounded) for a file the detached supervisor writes, woken by the file system's events. */
    static void awaitFile(Path file, Function<Void, String> why) throws IOException, InterruptedException {
        if (!FileWait.all(Duration.ofMinutes(5), file)) {
            throw new AssertionError(file + " never appeared: " + why.apply(null));
        }
    }

    static List<String> nulSeparated(Path file) throws IOException {
        String s = Files.readString(file, StandardCharsets.UTF_8);
        return Arrays.asList(s.substring(0, s.length() - 1).split("\0", -1));
    }

    static Map<String, String> environ(Path file) throws IOException {
        Map<String, String> env = new LinkedHashMap<>();
        for (String kv : nulSeparated(file)) {
            int eq = kv.indexOf('=');
            env.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return env;
    }

    @ParameterizedTest
    @MethodSource("launchers")
    void theSupervisorStartsDetachedWithItsArgvWorkingDirectoryAndTheJobsValuesUnchanged(String kind) throws Exception {
        Path ws = Files.createDirectories(dir.resolve("ws it's $HOME 100% ünïcode"));
        // the run directory: every character a path may hold (it travels as a variable)
        Path runDir = Files.createDirectories(
                dir.resolve("ws@tmp/run $HOME $$ ${X} `id` 'q' \"dq\" back\\slash %s ünï\nline"));
        Path script = runDir.resolve("supervise it's.sh");
        Files.writeString(script, RECORDER, StandardCharsets.UTF_8);
        Path home = Files.createDirectories(dir.resolve("home $HOME"));
        Map<String, String> env = trickyEnv(home);
        Setup s = setup(kind, ws, Files.createDirectories(dir.resolve("container-root")));

        starter(s, "cookie-1").start(script.toString(), runDir.toString(), env, ws.toString());

        assertThat(s.launches()).hasSize(1);
        assertThat(runDir.resolve("done"))
                .as("the supervisor waits for go: the launch returned first")
                .doesNotExist();
        Files.writeString(runDir.resolve("go"), "");
        awaitFile(runDir.resolve("done"), v -> s.console().text());

        assertThat(nulSeparated(runDir.resolve("argv.bin")))
                .as(kind)
                .containsExactly(script.toString(), runDir.toString());
        assertThat(Files.readString(runDir.resolve("pwd.txt"), StandardCharsets.UTF_8))
                .isEqualTo(ws.toRealPath() + "\n");
        Map<String, String> seen = environ(runDir.resolve("environ.bin"));
        assertThat(seen).as(kind).containsAllEntriesOf(env).containsEntry("JENKINS_SERVER_COOKIE", "cookie-1");
        assertThat(seen.keySet())
                .as("the paths' variables are gone before the supervisor starts")
                .doesNotContain(
                        LauncherStarter.SCRIPT,
                        LauncherStarter.DIRECTORY,
                        LauncherStarter.WORKDIR,
                        LauncherStarter.EMPTY);
        assertThat(runDir.resolve("supervisor.log"))
                .as("its output goes to its folder")
                .exists();
    }

    @ParameterizedTest
    @MethodSource("launchers")
    void aMissingWorkingDirectoryIsCreatedBeforeTheLaunch(String kind) throws Exception {
        Path ws = dir.resolve("ws");
        Path workDir = ws.resolve("not yet/made");
        Path runDir = Files.createDirectories(dir.resolve("ws@tmp/run"));
        Path script = runDir.resolve("supervise.sh");
        Files.writeString(script, RECORDER, StandardCharsets.UTF_8);
        Files.writeString(runDir.resolve("go"), "");
        Setup s = setup(kind, Files.createDirectories(ws), Files.createDirectories(dir.resolve("container-root")));
        LauncherStarter.Folders folders = mock(LauncherStarter.Folders.class);
        org.mockito.Mockito.doAnswer(i -> Files.createDirectories(Path.of((String) i.getArgument(0))))
                .when(folders)
                .mkdirs(workDir.toString());

        new LauncherStarter(s.launcher(), s.console().listener, folders, "c")
                .start(script.toString(), runDir.toString(), Map.of("PATH", "/usr/bin:/bin"), workDir.toString());

        awaitFile(runDir.resolve("done"), v -> s.console().text());
        assertThat(Files.readString(runDir.resolve("pwd.txt"))).isEqualTo(workDir.toRealPath() + "\n");
        var order = inOrder(folders, s.launcher());
        order.verify(folders).mkdirs(workDir.toString());
        order.verify(s.launcher()).launch();
    }

    @Test
    void withoutTheFolderAPlainAgentsLauncherRefusesTheLaunch() throws Exception {
        // why the folder is made first: LocalProc checks the working directory (Proc.java:246-247)
        Setup s = setup("plain", dir, dir);
        Path missing = dir.resolve("missing");
        LauncherStarter starter = new LauncherStarter(s.launcher(), s.console().listener, path -> {}, "c");
        assertThatThrownBy(() -> starter.start("/x/supervise.sh", "/x", Map.of(), missing.toString()))
                .isInstanceOf(IOException.class)
                .hasMessageContaining("doesn't exist");
    }

    @ParameterizedTest
    @MethodSource("launchers")
    void killAllEndsTheSupervisorAndItsChildrenThroughTheLaunchersKill(String kind) throws Exception {
        Path runDir = Files.createDirectories(dir.resolve("ws@tmp/run"));
        Path script = runDir.resolve("supervise.sh");
        // a supervisor that stopped answering: its child, then itself, never end
        Files.writeString(
                script,
                "sleep 600 &\necho \"$!\" > \"$1/child.pid\"\necho \"$$\" > \"$1/pid.tmp\"\nmv \"$1/pid.tmp\" \"$1/pid\"\nwait\n",
                StandardCharsets.UTF_8);
        Path ws = Files.createDirectories(dir.resolve("ws"));
        Setup s = setup(kind, ws, Files.createDirectories(dir.resolve("container-root")));
        String cookie = LauncherStarter.newCookie();
        LauncherStarter starter = starter(s, cookie);
        starter.start(script.toString(), runDir.toString(), Map.of("PATH", "/usr/bin:/bin"), ws.toString());
        awaitFile(runDir.resolve("pid"), v -> s.console().text());
        long pid = Long.parseLong(Files.readString(runDir.resolve("pid")).trim());
        long child =
                Long.parseLong(Files.readString(runDir.resolve("child.pid")).trim());
        assertThat(LauncherReplays.environ(pid)).containsEntry("JENKINS_SERVER_COOKIE", cookie);

        starter.killAll();

        verify(s.launcher()).kill(Map.of("JENKINS_SERVER_COOKIE", cookie));
        assertThat(Processes.runningAfter(Duration.ofMinutes(1), pid, child))
                .as("still alive after the kill")
                .isEmpty();
    }

    // ---- the replays reproduce what the review found with the previous command --------------------

    /** The previous command: paths as $0/$1 of {@code sh -c}, the values as they are. */
    static final String OLD_DETACH = "nohup sh \"$0\" \"$1\" > \"$1/supervisor.log\" 2>&1 < /dev/null &";

    @Test
    void kubernetesTurnedThePreviousCommandsDollarZeroIntoShAndDollarOneIntoNothing() throws Exception {
        Path root = Files.createDirectories(dir.resolve("container-root"));
        KubernetesContainer k8s = new KubernetesContainer(AGENT, CONTAINER, root.toFile(), new Console());
        Launch old = new Launch(List.of("sh", "-c", OLD_DETACH, "/ws@tmp/s.sh", "/ws@tmp/run"), List.of(), null);
        assertThat(argvInContainer(k8s, old))
                .containsExactly(
                        "sh",
                        "-c",
                        "nohup sh \"sh\" \"\" > \"/supervisor.log\" 2>&1 < /dev/null &",
                        "/ws@tmp/s.sh",
                        "/ws@tmp/run");
        Launch now = new Launch(LauncherStarter.command(), List.of(), null);
        assertThat(argvInContainer(k8s, now)).containsExactly("sh", "-c", LauncherStarter.DETACH);
    }

    @Test
    void plainAndDockerAgentsExpandedThePreviousUnescapedValues() {
        PlainAgent agent = new PlainAgent(AGENT, new Console());
        Launch old = new Launch(
                List.of("sh", "-c", OLD_DETACH, "/ws@tmp/s.sh", "/ws@tmp/run"),
                List.of("V_HOME=$HOME", "V_BRACED=${X}", "V_PID=$$"),
                null);
        PlainAgent.Prepared p = agent.prepare(old);
        assertThat(p.env())
                .containsEntry("V_HOME", "/home/agent")
                .containsEntry("V_BRACED", "agent-x")
                .containsEntry("V_PID", "$");
        assertThat(p.cmd().get(2))
                .as("$0 and $1 are no job variables: left as they are")
                .isEqualTo(OLD_DETACH);

        Map<String, String> escaped = LauncherStarter.envs("/s", "/d", Map.of("V_HOME", "$HOME"), null, "c");
        assertThat(agent.prepare(new Launch(List.of(), Launch.mapToEnv(escaped), null))
                        .env())
                .containsEntry("V_HOME", "$HOME");
    }

    /** The argv the container's sh passes on for a launch: its stdin text, with printf for the command. */
    private static List<String> argvInContainer(KubernetesContainer k8s, Launch launch) throws Exception {
        Path out = Files.createTempFile(k8s.containerWorkingDir.toPath(), "argv", ".bin");
        List<String> commands = new ArrayList<>(List.of("printf", "%s\\0"));
        commands.addAll(KubernetesContainer.getCommands(launch));
        List<String> quoted = new ArrayList<>();
        for (String c : commands) {
            quoted.add("\"" + c + "\"");
        }
        Process sh = new ProcessBuilder("sh", "-c", String.join(" ", quoted) + " > '" + out + "'").start();
        assertThat(sh.waitFor(10, TimeUnit.SECONDS)).isTrue();
        assertThat(sh.exitValue()).isZero();
        return nulSeparated(out);
    }

    // ---- a whole run ---------------------------------------------------------------------------------

    @ParameterizedTest
    @MethodSource("launchers")
    void aWholeRunThroughEachLauncherFindsTheBug(String kind) throws Exception {
        FakeGpu gpu = new FakeGpu(dir).farOob().put("blocking.sleep", "1");
        Path ws = Files.createDirectories(dir.resolve("ws"));
        RunSpec spec = new RunSpec()
                .command(List.of("python3", "train.py", "--bug", "far"))
                .outDir(dir.resolve("ws@tmp/run").toString())
                .workDir(ws.toString())
                .killGraceSeconds(1)
                .toolWriteGraceSeconds(5)
                .samplerIntervalMs(100);
        Console console = new Console();
        PlainAgent agent = new PlainAgent(AGENT, console);
        Map<String, String> image = new LinkedHashMap<>(CONTAINER);
        image.put("PATH", gpu.env().get("PATH")); // docker passes no PATH: the tools are the image's
        Replay replay =
                switch (kind) {
                    case "plain" -> agent;
                    case "docker" -> new DockerInside(agent, AGENT, ws.toString(), image);
                    default ->
                        new KubernetesContainer(
                                AGENT,
                                CONTAINER,
                                Files.createDirectories(dir.resolve("container-root"))
                                        .toFile(),
                                console);
                };
        List<Launch> launches = new CopyOnWriteArrayList<>();
        LauncherStarter starter = new LauncherStarter(
                LauncherReplays.launcher(replay, launches),
                console.listener,
                path -> Files.createDirectories(Path.of(path)),
                "c");
        List<String> lines = new ArrayList<>();

        Report report = new Runner(spec, gpu.env(), lines::add, starter, true).run();

        assertThat(report.verdict())
                .as(String.join("\n", lines) + "\n" + console.text())
                .isEqualTo(Verdict.FAIL);
        assertThat(report.diagnosis().faultAt().line()).isEqualTo(32);
        assertThat(report.execution().phases()).hasSize(3);
        assertThat(launches).isNotEmpty().allSatisfy(l -> assertThat(l.cmds()).isEqualTo(LauncherStarter.command()));
        assertThat(dir.resolve("ws@tmp/run/blocking/supervisor.conf"))
                .content()
                .as("detached: no owner whose death would end the phase")
                .contains("OWNER_PID=''");
    }
}
