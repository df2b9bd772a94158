package io.jenkins.plugins.gpusanitizer.steps;

import static org.mockito.ArgumentMatchers.any;
import static org.mockito.ArgumentMatchers.anyBoolean;
import static org.mockito.ArgumentMatchers.anyList;
import static org.mockito.ArgumentMatchers.anyMap;
import static org.mockito.ArgumentMatchers.anyString;
import static org.mockito.Mockito.doAnswer;
import static org.mockito.Mockito.mock;
import static org.mockito.Mockito.when;

import hudson.Launcher;
import hudson.model.TaskListener;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Replays, in our own code, what the three launchers a step meets do with a {@code launch()}: its
 * argv, its variables and its working directory, up to the process they start, which runs for real
 * under {@code /bin/sh} here. Written from the sources (read, not copied), each step cited as
 * {@code file:line}:
 *
 * <ul>
 *   <li>jenkinsci/jenkins tag jenkins-2.555.3: core/src/main/java/hudson/Launcher.java, EnvVars.java,
 *       Util.java, Proc.java, util/ProcessTree.java;
 *   <li>jenkinsci/docker-workflow-plugin 3e04e4f:
 *       src/main/java/org/jenkinsci/plugins/docker/workflow/WithContainerStep.java;
 *   <li>jenkinsci/kubernetes-plugin a82d78a:
 *       src/main/java/org/csanchez/jenkins/plugins/kubernetes/pipeline/ContainerExecDecorator.java.
 * </ul>
 *
 * What is not replayed is said where it would act (a container's custom workingDir, the run context's
 * own exports in Kubernetes, remoting).
 */
final class LauncherReplays {
    private LauncherReplays() {}

    /** What the caller handed to {@code launcher.launch()}: cmds, envs (in order), pwd. */
    record Launch(List<String> cmds, List<String> envs, String pwd) {
        /** ProcStarter.envs(Map) keeps {@code Util.mapToEnv(overrides)}: "K=V" (Launcher.java:401-403). */
        static List<String> mapToEnv(Map<String, String> m) {
            List<String> out = new ArrayList<>();
            m.forEach((k, v) -> out.add(k + "=" + v));
            return out;
        }
    }

    /** One of the launchers. */
    interface Replay {
        /** Runs the launch as that launcher does, returns {@code join()}'s exit code. */
        int run(Launch launch) throws IOException, InterruptedException;

        /** {@code launcher.kill(modelEnvVars)}. */
        void kill(Map<String, String> model) throws IOException, InterruptedException;

        String name();
    }

    /** The console: what the launched processes printed (the listener's log). */
    static final class Console {
        final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
        final TaskListener listener = mock(TaskListener.class);

        Console() {
            PrintStream out = new PrintStream(bytes, true, StandardCharsets.UTF_8);
            when(listener.getLogger()).thenReturn(out);
            when(listener.error(anyString())).thenCallRealMethod();
            when(listener.getCharset()).thenReturn(StandardCharsets.UTF_8);
        }

        String text() {
            synchronized (bytes) {
                return bytes.toString(StandardCharsets.UTF_8);
            }
        }

        void write(byte[] b) {
            synchronized (bytes) {
                bytes.writeBytes(b);
            }
        }
    }

    /**
     * A {@link Launcher} (Mockito; the real class is not on this build's class path) whose
     * {@code launch()} records cmds/envs/pwd as ProcStarter keeps them and whose {@code join()} runs the
     * replay; {@code kill} goes to the replay too. {@code launches} gets each launch.
     */
    static Launcher launcher(Replay replay, List<Launch> launches) throws Exception {
        Launcher launcher = mock(Launcher.class);
        when(launcher.isUnix()).thenReturn(true);
        when(launcher.launch()).thenAnswer(invocation -> starter(replay, launches));
        doAnswer(invocation -> {
                    replay.kill(invocation.getArgument(0));
                    return null;
                })
                .when(launcher)
                .kill(anyMap());
        return launcher;
    }

    @SuppressWarnings("unchecked")
    private static Launcher.ProcStarter starter(Replay replay, List<Launch> launches) throws Exception {
        Launcher.ProcStarter ps = mock(Launcher.ProcStarter.class);
        List<String>[] cmds = new List[] {List.of()};
        List<String>[] envs = new List[] {List.of()};
        String[] pwd = {null};
        when(ps.cmds(anyList())).thenAnswer(i -> {
            cmds[0] = List.copyOf((List<String>) i.getArgument(0));
            return ps;
        });
        when(ps.envs(anyMap())).thenAnswer(i -> {
            envs[0] = Launch.mapToEnv((Map<String, String>) i.getArgument(0));
            return ps;
        });
        when(ps.pwd(anyString())).thenAnswer(i -> {
            pwd[0] = i.getArgument(0);
            return ps;
        });
        when(ps.quiet(anyBoolean())).thenReturn(ps);
        when(ps.stdout(any(TaskListener.class))).thenReturn(ps);
        when(ps.join()).thenAnswer(i -> {
            Launch launch = new Launch(cmds[0], envs[0], pwd[0]);
            launches.add(launch);
            return replay.run(launch);
        });
        return ps;
    }

    // ---- core: Util.replaceMacro, EnvVars ------------------------------------------------------------

    /** Util.java:170. */
    private static final Pattern VARIABLE = Pattern.compile("\\$([A-Za-z0-9_]+|\\{[A-Za-z0-9_.]+\\}|\\$)");

    /** Util.java:192-219: $$ is one $, a defined $NAME/${NAME} its value, an undefined one stays. */
    static String replaceMacro(String s, Map<String, String> resolver) {
        int idx = 0;
        while (true) {
            Matcher m = VARIABLE.matcher(s);
            if (!m.find(idx)) {
                return s;
            }
            String key = m.group().substring(1);
            String value;
            if (key.charAt(0) == '$') {
                value = "$";
            } else {
                if (key.charAt(0) == '{') {
                    key = key.substring(1, key.length() - 1);
                }
                value = resolver.get(key);
            }
            if (value == null) {
                idx = m.end();
            } else {
                s = s.substring(0, m.start()) + value + s.substring(m.end());
                idx = m.start() + value.length();
            }
        }
    }

    /** {@code new EnvVars()}: case-insensitive, case-preserving (EnvVars.java:112-114). */
    static TreeMap<String, String> envVars(Map<String, String> m) {
        TreeMap<String, String> out = new TreeMap<>(String.CASE_INSENSITIVE_ORDER);
        out.putAll(m);
        return out;
    }

    /** EnvVars.override (EnvVars.java:145-168): empty removes, PATH+X prepends. */
    static void override(TreeMap<String, String> target, String key, String value) {
        if (value == null || value.isEmpty()) {
            target.remove(key);
            return;
        }
        int idx = key.indexOf('+');
        if (idx > 0) {
            String realKey = key.substring(0, idx);
            String v = target.get(realKey);
            target.put(realKey, v == null ? value : value + File.pathSeparatorChar + v);
            return;
        }
        target.put(key, value);
    }

    /**
     * EnvVars.overrideExpandingAll (EnvVars.java:351-356): each value expanded against what is there,
     * then overridden. The real one orders the keys by their references to each other first
     * (OverrideOrderCalculator, :189-340); the values of these tests refer to none of the others (only to
     * the agent's own variables, or to nothing once escaped), where the order changes nothing.
     */
    static void overrideExpandingAll(TreeMap<String, String> target, Map<String, String> all) {
        List<String> plain = new ArrayList<>();
        List<String> extending = new ArrayList<>();
        for (String key : all.keySet()) {
            (key.indexOf('+') > 0 ? extending : plain).add(key); // XYZ+AAA last (:298-301)
        }
        plain.addAll(extending);
        for (String key : plain) {
            override(target, key, replaceMacro(all.get(key), target));
        }
    }

    /** Runs a prepared process as LocalProc does and joins it (Proc.java:240-250, 316-360). */
    static int runLocalProc(List<String> cmd, Map<String, String> env, File dir, Console console)
            throws IOException, InterruptedException {
        Map<String, String> withCookie = new LinkedHashMap<>(env);
        withCookie.put("HUDSON_COOKIE", UUID.randomUUID().toString()); // EnvVars.createCookie, Proc.java:244-245
        if (dir != null && !dir.exists()) { // Proc.java:246-247
            throw new IOException(
                    String.format("Process working directory '%s' doesn't exist!", dir.getAbsolutePath()));
        }
        ProcessBuilder builder = new ProcessBuilder(cmd).directory(dir).redirectErrorStream(true);
        builder.environment().clear();
        builder.environment().putAll(withCookie);
        return join(builder.start(), console);
    }

    /**
     * LocalProc.join (Proc.java:316-360): waits for the process, then for its output's copier for 10 s
     * at most; a copier still running means a child kept the launcher's output open ("Process leaked
     * file descriptors"), which a detached start must not do: that is a failure here.
     */
    static int join(Process process, Console console) throws InterruptedException, IOException {
        Thread copier = new Thread(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] buffer = new byte[8192];
                for (int n; (n = in.read(buffer)) > 0; ) {
                    byte[] chunk = new byte[n];
                    System.arraycopy(buffer, 0, chunk, 0, n);
                    console.write(chunk);
                }
            } catch (IOException e) {
                // closed
            }
        });
        copier.setDaemon(true);
        copier.start();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            throw new IOException("the launched process did not return within 30 s: its join() would wait");
        }
        copier.join(TimeUnit.SECONDS.toMillis(10));
        if (copier.isAlive()) {
            throw new IOException("Process leaked file descriptors (a child kept the launcher's output open)");
        }
        return process.exitValue();
    }

    // ---- a plain agent -------------------------------------------------------------------------------

    /**
     * The agent's LocalLauncher (a RemoteLauncher on the controller sends cmds, envs and pwd to one on
     * the agent unchanged: Launcher.java:1113-1136, 1352-1378). {@code agentEnv} is the agent JVM's own
     * environment ({@code EnvVars.masterEnvVars}).
     */
    static final class PlainAgent implements Replay {
        final Map<String, String> agentEnv;
        final Console console;

        PlainAgent(Map<String, String> agentEnv, Console console) {
            this.agentEnv = agentEnv;
            this.console = console;
        }

        /** The argv and environment LocalLauncher.launch gives LocalProc (Launcher.java:972-995). */
        record Prepared(List<String> cmd, Map<String, String> env, File dir) {}

        Prepared prepare(Launch launch) {
            // inherit(String[]) (Launcher.java:1468-1479): "K=V" split at the first '=' into an EnvVars
            TreeMap<String, String> overrides = envVars(Map.of());
            for (String e : launch.envs()) {
                int index = e.indexOf('=');
                overrides.put(e.substring(0, index), e.substring(index + 1));
            }
            // inherit(Map) (:1484-1488): the agent's variables, overridden with expansion
            TreeMap<String, String> jobEnv = envVars(agentEnv);
            overrideExpandingAll(jobEnv, overrides);
            // "replace variables in command line" (:986-989)
            List<String> cmd = new ArrayList<>();
            for (String c : launch.cmds()) {
                cmd.add(replaceMacro(c, jobEnv));
            }
            return new Prepared(cmd, jobEnv, launch.pwd() == null ? null : new File(launch.pwd()));
        }

        @Override
        public int run(Launch launch) throws IOException, InterruptedException {
            Prepared p = prepare(launch);
            return runLocalProc(p.cmd(), p.env(), p.dir(), console);
        }

        /**
         * LocalLauncher.kill (Launcher.java:1015-1016; RemoteLauncher's KillTask :1161-1183):
         * ProcessTree.killAll, Unix (ProcessTree.java:753-757): every process whose environment has all
         * the model's variables (hasMatchingEnvVars :340-353), killed recursively, children first, with
         * SIGTERM, each waited for until one deadline of SoftKillWaitSeconds (5 s) (:808-842).
         */
        @Override
        public void kill(Map<String, String> model) throws InterruptedException {
            if (model.isEmpty()) {
                return;
            }
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            for (ProcessHandle p : ProcessHandle.allProcesses().toList()) {
                Map<String, String> env = environ(p.pid());
                if (model.entrySet().stream().allMatch(e -> e.getValue().equals(env.get(e.getKey())))) {
                    killRecursively(p, deadline);
                }
            }
        }

        private static void killRecursively(ProcessHandle p, long deadline) throws InterruptedException {
            for (ProcessHandle child : p.children().toList()) {
                killRecursively(child, deadline);
            }
            p.destroy(); // SIGTERM (ProcessTree.java:814)
            long left = deadline - System.nanoTime();
            if (left > 0) {
                try {
                    p.onExit().get(left, TimeUnit.NANOSECONDS);
                } catch (TimeoutException | java.util.concurrent.ExecutionException e) {
                    // the real one then asks the ProcessKillers (none by default): it stays
                }
            }
        }

        @Override
        public String name() {
            return "plain agent";
        }
    }

    /** /proc/PID/environ as a map (empty when unreadable). */
    static Map<String, String> environ(long pid) {
        Map<String, String> env = new LinkedHashMap<>();
        try {
            byte[] bytes = Files.readAllBytes(Path.of("/proc", Long.toString(pid), "environ"));
            for (String kv : new String(bytes, StandardCharsets.UTF_8).split("\0")) {
                int eq = kv.indexOf('=');
                if (eq > 0) {
                    env.put(kv.substring(0, eq), kv.substring(eq + 1));
                }
            }
        } catch (IOException e) {
            // gone or not ours
        }
        return env;
    }

    // ---- docker.image().inside ----------------------------------------------------------------------

    /**
     * WithContainerStep.Decorator (docker ≥ 17.12: {@code --env} and {@code --workdir}), over a plain
     * agent that runs the {@code docker} client; the client and daemon are replayed by running the
     * command here with the container's variables overridden by the {@code --env} ones (docker exec's
     * documented behaviour) in {@code --workdir}, else in the container's working directory, which
     * {@code docker run -w WS} made the workspace.
     */
    static final class DockerInside implements Replay {
        final PlainAgent host;
        final Map<String, String> envHost;
        final String ws;
        final Map<String, String> containerEnv;

        /**
         * @param envHost      the agent's environment as the step saw it when the container started
         *                     (WithContainerStep.java:251-253)
         * @param containerEnv the container process's own environment (docker run's {@code -e}, the image)
         */
        DockerInside(PlainAgent host, Map<String, String> envHost, String ws, Map<String, String> containerEnv) {
            this.host = host;
            this.envHost = envHost;
            this.ws = ws;
            this.containerEnv = containerEnv;
        }

        @Override
        public int run(Launch launch) throws IOException, InterruptedException {
            List<String> prefix = new ArrayList<>(List.of("docker", "exec")); // :270
            if (ws != null && launch.pwd() != null && !launch.pwd().equals(ws)) { // :272-276
                prefix.add("--workdir"); // :277-281
                prefix.add(launch.pwd());
            }
            Set<String> envReduced = new TreeSet<>(launch.envs()); // :293-294
            envReduced.removeAll(Launch.mapToEnv(envHost));
            envReduced.removeIf(e -> e.startsWith("PATH=") || "=".equals(e.trim())); // :297-303
            for (String e : envReduced) { // :305-315
                prefix.add("--env");
                prefix.add(e);
            }
            prefix.add("the-container"); // :316
            List<String> cmds = new ArrayList<>(prefix);
            cmds.addAll(launch.cmds()); // :351
            // super.launch(starter) (:364): the plain agent expands every argument, --env ones included
            PlainAgent.Prepared p = host.prepare(new Launch(cmds, launch.envs(), launch.pwd()));
            if (p.dir() != null && !p.dir().exists()) { // the client's own working directory (Proc.java:246)
                throw new IOException(String.format(
                        "Process working directory '%s' doesn't exist!", p.dir().getAbsolutePath()));
            }
            return dockerExec(p.cmd());
        }

        /** The client and daemon: {@code docker exec [--workdir W] [--env K=V]... CONTAINER CMD...}. */
        private int dockerExec(List<String> argv) throws IOException, InterruptedException {
            int i = 2;
            String workdir = ws;
            Map<String, String> env = new LinkedHashMap<>(containerEnv);
            while (argv.get(i).startsWith("--")) {
                String option = argv.get(i++);
                String value = argv.get(i++);
                if (option.equals("--workdir")) {
                    workdir = value;
                } else {
                    int eq = value.indexOf('=');
                    env.put(value.substring(0, eq), value.substring(eq + 1));
                }
            }
            i++; // the container
            if (!new File(workdir).isDirectory()) {
                return 126; // OCI runtime exec failed: chdir
            }
            ProcessBuilder builder = new ProcessBuilder(argv.subList(i, argv.size()))
                    .directory(new File(workdir))
                    .redirectErrorStream(true);
            builder.environment().clear();
            builder.environment().putAll(env);
            return join(builder.start(), host.console);
        }

        /**
         * Decorator.kill (WithContainerStep.java:366-404): {@code ps -A -o pid,command e} in the
         * container, the lines that contain every {@code K=V} of the model, {@code kill} of their pids.
         */
        @Override
        public void kill(Map<String, String> model) throws IOException, InterruptedException {
            Process ps = new ProcessBuilder("ps", "-A", "-o", "pid,command", "e").start();
            String out = new String(ps.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (ps.waitFor() != 0) {
                throw new IOException("failed to run ps");
            }
            List<String> pids = new ArrayList<>();
            LINE:
            for (String line : out.split("\n")) {
                for (Map.Entry<String, String> entry : model.entrySet()) {
                    if (!line.contains(entry.getKey() + "=" + entry.getValue())) {
                        continue LINE;
                    }
                }
                line = line.trim();
                int spc = line.indexOf(' ');
                if (spc == -1) {
                    continue;
                }
                pids.add(line.substring(0, spc));
            }
            if (!pids.isEmpty()) {
                List<String> cmds = new ArrayList<>(List.of("kill"));
                cmds.addAll(pids);
                new ProcessBuilder(cmds).start().waitFor(); // a pid already gone (ps itself) fails: as there
            }
        }

        @Override
        public String name() {
            return "docker inside";
        }
    }

    // ---- kubernetes container() ---------------------------------------------------------------------

    /**
     * ContainerExecDecorator's launcher (no custom container workingDir: the rewrites at :290-336 and
     * :926-937 change nothing then; no pod template or run-context variables: :600-611 would export
     * those first, raw, before the command's).
     */
    static final class KubernetesContainer implements Replay {
        final Map<String, String> computerEnv;
        final Map<String, String> containerEnv;
        final File containerWorkingDir;
        final Console console;
        /** What was written to the container's sh, per launch. */
        final List<String> scripts = new CopyOnWriteArrayList<>();

        /**
         * @param computerEnv  the agent computer's environment ({@code computer.getEnvironment()})
         * @param containerEnv the environment {@code sh} starts with in the container
         */
        KubernetesContainer(
                Map<String, String> computerEnv,
                Map<String, String> containerEnv,
                File containerWorkingDir,
                Console console) {
            this.computerEnv = envVars(computerEnv);
            this.containerEnv = containerEnv;
            this.containerWorkingDir = containerWorkingDir;
            this.console = console;
        }

        @Override
        public int run(Launch launch) throws IOException, InterruptedException {
            // :338-375: keep the variables that differ from the computer's
            List<String> envVars = new ArrayList<>();
            for (String keyValue : launch.envs()) {
                String[] split = keyValue.split("=", 2);
                if (!split[1].equals(computerEnv.get(split[0]))) {
                    envVars.add(keyValue);
                }
            }
            return doLaunch(fixDoubleDollar(envVars), launch.pwd(), getCommands(launch));
        }

        /** :956-960. */
        static List<String> fixDoubleDollar(List<String> envVars) {
            return envVars.stream()
                    .map(ev -> ev.replaceAll("\\$\\$", Matcher.quoteReplacement("$")))
                    .toList();
        }

        /** getCommands (:916-941), unix, the pwd not rewritten. */
        static List<String> getCommands(Launch launch) {
            List<String> all = new ArrayList<>();
            for (String cmd : launch.cmds()) {
                String fixedCommand = cmd.replaceAll("\\$\\$", Matcher.quoteReplacement("\\$"));
                fixedCommand = fixedCommand.replaceAll("\\\"", Matcher.quoteReplacement("\\\""));
                all.add(fixedCommand);
            }
            return all;
        }

        /**
         * doLaunch (:390-667): {@code sh} in the container (:437-439, exec at :520), then on its stdin
         * (:585-653): {@code cd "PWD"} (:591-596), the exports (:598-622, 726-737), the command (doExec
         * :878-914: each statement in double quotes, a space after each, a newline, {@code exit}, a
         * newline). {@code join()} is that shell's exit code (ContainerExecProc.join).
         */
        int doLaunch(List<String> cmdEnvs, String pwd, List<String> commands) throws IOException, InterruptedException {
            StringBuilder in = new StringBuilder();
            if (pwd != null) {
                in.append(String.format("cd \"%s\"", pwd)).append('\n');
            }
            TreeMap<String, String> envVars = envVars(Map.of());
            if (cmdEnvs != null) {
                for (String cmdEnv : cmdEnvs) { // EnvVars.addLine (EnvVars.java:404-409)
                    int sep = cmdEnv.indexOf('=');
                    if (sep > 0) {
                        envVars.put(cmdEnv.substring(0, sep), cmdEnv.substring(sep + 1));
                    }
                }
            }
            for (Map.Entry<String, String> entry : envVars.entrySet()) { // setupEnvironmentVariable :726-737
                if (entry.getKey().matches("[a-zA-Z_][a-zA-Z0-9_]*")) {
                    in.append(String.format(
                            "export %s='%s'", entry.getKey(), entry.getValue().replace("'", "'\\''")));
                    in.append('\n');
                }
            }
            for (String statement : commands) {
                in.append('"').append(statement).append("\" ");
            }
            in.append('\n');
            in.append("exit").append('\n');
            scripts.add(in.toString());
            ProcessBuilder builder =
                    new ProcessBuilder("sh").directory(containerWorkingDir).redirectErrorStream(true);
            builder.environment().clear();
            builder.environment().putAll(containerEnv);
            Process process = builder.start();
            try (OutputStream stdin = process.getOutputStream()) {
                stdin.write(in.toString().getBytes(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return join(process, console);
        }

        /** kill (:670-685), unix: {@code kill `grep -l 'JENKINS_SERVER_COOKIE=C' /proc/*\/environ ...`}. */
        @Override
        public void kill(Map<String, String> model) throws IOException, InterruptedException {
            String cookie = model.get("JENKINS_SERVER_COOKIE"); // COOKIE_VAR, :96 and :672
            doLaunch(
                    null,
                    null,
                    List.of(
                            "sh",
                            "-c",
                            "kill \\`grep -l '" + "JENKINS_SERVER_COOKIE" + "=" + cookie
                                    + "' /proc/*/environ | cut -d / -f 3 \\`"));
        }

        @Override
        public String name() {
            return "kubernetes container()";
        }
    }

    /** Those of the pids still running (a zombie waiting for its parent has ended). */
    static Set<Long> alive(Set<Long> pids) {
        Set<Long> out = new HashSet<>();
        for (long pid : pids) {
            try {
                String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
                char state = stat.charAt(stat.lastIndexOf(')') + 2);
                if (state != 'Z' && state != 'X') {
                    out.add(pid);
                }
            } catch (IOException e) {
                // gone
            }
        }
        return out;
    }
}
