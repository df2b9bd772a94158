package io.jenkins.plugins.gpusanitizer.steps;

import hudson.FilePath;
import hudson.Launcher;
import hudson.model.TaskListener;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.IOException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * Starts the run's processes through the step context's {@link Launcher}, decorators included: inside
 * {@code container('pytorch')} or {@code docker.image(...).inside} they run in the container, where the
 * job's torch, CUDA and compute-sanitizer are, exactly where an {@code sh} step at that point would run.
 * It lives on the controller (the launcher and its decorators do) and is exported to the agent's
 * runner over the channel. Each start is a short {@code sh -c} that leaves the phase's supervisor
 * running detached ({@code nohup}, as durable-task starts {@code sh} steps), so a controller restart or
 * an agent reconnect does not end it; the runner follows it through files in the run directory, which
 * the container shares with the agent because it lies in the workspace.
 *
 * <p>What the three launchers do to a command and its variables (read in their sources; the replays in
 * {@code LauncherReplays} run each through a real {@code sh}):
 *
 * <ul>
 *   <li>a plain agent (LocalLauncher, also behind RemoteLauncher) expands {@code $NAME}, {@code ${NAME}}
 *       and {@code $$} in every argument and in every variable's value with the job's variables
 *       (jenkins-2.555.3 Launcher.java:978-989, 1484-1487; EnvVars.java:351-355; Util.java:170-219), and
 *       drops a variable whose value is empty (EnvVars.java:145-149);
 *   <li>{@code docker.image().inside} prepends {@code docker exec --env K=V ... CONTAINER} and hands that
 *       to the plain launcher, so the {@code --env} arguments are expanded as above; it leaves out
 *       {@code PATH} and the variables equal to the agent's (WithContainerStep.java:270-364);
 *   <li>Kubernetes {@code container()} starts {@code sh} in the container and writes to it
 *       {@code cd "PWD"}, then {@code export K='V'} per variable (after {@code $$} to {@code $}), then every
 *       argument inside double quotes (after {@code $$} to {@code \$} and {@code "} to {@code \"}), then
 *       {@code exit}; it leaves out the variables equal to the agent's (ContainerExecDecorator.java
 *       319-387, 591-622, 726-737, 878-941, 956-960).
 * </ul>
 *
 * <p>So, as durable-task does (FileMonitoringTask.java:168-177, BourneShellScript.java:173, 263), every
 * {@code $} of a value and of the command is doubled, which all three turn back into one; and the
 * command is a fixed text without a path, a quote that matters, a backslash or a backtick: the paths
 * travel as variables ({@link #SCRIPT}, {@link #DIRECTORY}, {@link #WORKDIR}), whose values all three
 * pass through byte for byte (Kubernetes single-quotes them), and the command takes them into its
 * positional parameters and unsets them before the supervisor starts.
 */
final class LauncherStarter implements ProcessStarter {
    static final String SCRIPT = "GPU_SANITIZE_SCRIPT";
    static final String DIRECTORY = "GPU_SANITIZE_DIR";
    static final String WORKDIR = "GPU_SANITIZE_WORKDIR";
    /** The names of the variables set to the empty string, which a plain agent's launcher drops. */
    static final String EMPTY = "GPU_SANITIZE_EMPTY";
    /**
     * The variable every process started carries, with a value of this starter's: the one name whose
     * processes every launcher's {@code kill} finds (Kubernetes greps for this name only,
     * ContainerExecDecorator.java:670-685; durable-task's own value is another, so neither kills the other's).
     */
    static final String KILL_COOKIE = "JENKINS_SERVER_COOKIE";

    /**
     * The command's text as the launched {@code sh -c} must see it: returns at once, the supervisor
     * keeps running. {@code $1}..{@code $4}: the script, its folder, the working directory, the empty
     * variables. Not a variable of its own is assigned, so none of the job's is changed.
     */
    static final String DETACH = "set -- \"$" + SCRIPT + "\" \"$" + DIRECTORY + "\" \"$" + WORKDIR + "\" \"$" + EMPTY
            + "\"; unset " + SCRIPT + " " + DIRECTORY + " " + WORKDIR + " " + EMPTY + "; "
            + "if [ -n \"$3\" ]; then cd \"$3\" || exit 1; fi; "
            + "if [ -n \"$4\" ]; then export $4; fi; "
            + "nohup sh \"$1\" \"$2\" > \"$2/supervisor.log\" 2>&1 < /dev/null &";

    /** Creates a folder on the agent (the launcher's machine). */
    interface Folders {
        void mkdirs(String path) throws IOException, InterruptedException;
    }

    private final Launcher launcher;
    private final TaskListener listener;
    private final Folders folders;
    private final String cookie;

    LauncherStarter(Launcher launcher, TaskListener listener) {
        this(launcher, listener, newCookie());
    }

    /** @param cookie the same for every starter of one run, so that a controller after a restart kills what the one before started */
    LauncherStarter(Launcher launcher, TaskListener listener, String cookie) {
        // FilePath.mkdirs runs on the launcher's channel, the agent's (a decorated launcher has its inner one's)
        this(launcher, listener, path -> new FilePath(launcher.getChannel(), path).mkdirs(), cookie);
    }

    /** The run's cookie: derived from its run directory, the same after a controller restart. */
    static String cookieOf(String runDirectory) {
        return "gpu-sanitize-" + UUID.nameUUIDFromBytes(runDirectory.getBytes(java.nio.charset.StandardCharsets.UTF_8));
    }

    LauncherStarter(Launcher launcher, TaskListener listener, Folders folders, String cookie) {
        this.launcher = launcher;
        this.listener = listener;
        this.folders = folders;
        this.cookie = cookie;
    }

    static String newCookie() {
        return "gpu-sanitize-" + UUID.randomUUID();
    }

    @Override
    public void start(String script, String directory, Map<String, String> env, String workDir)
            throws IOException, InterruptedException {
        if (!launcher.isUnix()) {
            throw new StartRefused("gpuSanitize runs on Unix agents only (the phases are POSIX sh processes)");
        }
        if (workDir != null) {
            // as durable-task creates the workspace before it starts sh there (FileMonitoringTask.java:309):
            // a plain agent's LocalProc refuses a missing one (Proc.java:246-247), and so does the docker
            // client's, which runs there too; on the agent, so that the agent's user owns it
            folders.mkdirs(workDir);
        }
        Launcher.ProcStarter starter = launcher.launch()
                .cmds(command())
                .envs(envs(script, directory, env, workDir, cookie))
                .quiet(true)
                .stdout(listener);
        if (workDir != null) {
            starter.pwd(workDir);
        }
        int exit = starter.join();
        if (exit != 0) {
            // the launcher ran it and it failed: a reconnect would not change that (ReconnectingStarter)
            throw new StartRefused("the build's launcher could not start sh " + script + " (exit " + exit
                    + "; is sh in the container" + (workDir == null ? "" : ", and " + workDir + " in it") + "?)");
        }
    }

    /** What the launcher runs: the same for every start (the paths are variables). */
    static List<String> command() {
        return List.of("sh", "-c", escape(DETACH));
    }

    /**
     * The variables handed to the launcher: the job's, the paths, the names of the empty ones and the
     * kill cookie, every {@code $} doubled.
     */
    static Map<String, String> envs(
            String script, String directory, Map<String, String> env, String workDir, String cookie) {
        Map<String, String> out = new LinkedHashMap<>();
        List<String> empty = new ArrayList<>();
        env.forEach((key, value) -> {
            out.put(key, escape(value));
            if (value.isEmpty() && key.matches("[A-Za-z_][A-Za-z0-9_]*")) {
                empty.add(key + "=");
            }
        });
        out.put(SCRIPT, escape(script));
        out.put(DIRECTORY, escape(directory));
        out.put(WORKDIR, workDir == null ? "" : escape(workDir));
        out.put(EMPTY, String.join(" ", empty));
        out.put(KILL_COOKIE, cookie);
        return out;
    }

    /** Against the launchers' expansion: each turns {@code $$} back into {@code $}. */
    static String escape(String text) {
        return text.replace("$", "$$");
    }

    /**
     * Asks the launcher to end every process this starter started that still runs (a supervisor that
     * stopped answering, and its phase): by the cookie, as durable-task stops {@code sh} steps
     * (FileMonitoringTask.java:484-489). A plain agent sends SIGTERM to each and its descendants
     * (ProcessTree.java:753-757, 808-842), Kubernetes runs {@code kill} in the container
     * (ContainerExecDecorator.java:670-685), docker {@code ps} and {@code kill} there (WithContainerStep.java
     * 366-404, with procps in the image). The supervisor traps SIGTERM and stops its phase in order, then sweeps
     * what the job left without this variable (its session, its descendants, its own cookie: {@code env -i},
     * daemons); a plain agent's kill, children first, reaches the job's orphans too, reparented to the supervisor
     * (a child subreaper). A build's abort does not come here: it stops the runner ({@code AgentRun.Stop}), whose
     * supervisors do the same on their stop file. The cookie is this starter's: after a controller restart the new starter cannot reach the supervisors
     * started before it (they are followed, and stopped, through the run directory).
     */
    @Override
    public void killAll() {
        try {
            launcher.kill(Map.of(KILL_COOKIE, cookie));
        } catch (IOException | RuntimeException e) {
            listener.error("[gpu-sanitize] could not kill the run's processes through the launcher: " + e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String describe() {
        return "through the build's launcher (" + launcher.getClass().getSimpleName() + ")";
    }
}
