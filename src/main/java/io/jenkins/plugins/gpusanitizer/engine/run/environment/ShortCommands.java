package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.run.PhaseResult;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseScript;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseSettings;
import io.jenkins.plugins.gpusanitizer.engine.run.process.ProcessStarter;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The environment probe's short commands (nvidia-smi, nvcc, the job's Python, compute-sanitizer) and
 * its tool lookups, run where the job runs: through the run's {@link ProcessStarter} and the same
 * supervisor as the phases, so that inside a container they see the container's tools. Commands that can go
 * together go in one start of the supervisor ({@link #runAll}, {@link #executables}): where the job runs in a
 * container each start is a round trip through the container's exec, and anywhere it is a handful of processes.
 * Each start's folder ({@code env/commands/N-NAME/}) keeps its script and outputs.
 */
public final class ShortCommands {
    /** Each query's executables, "INDEX PATH" a line: where the target's own PATH finds the name, as its sh would, then
     * the executable candidates. */
    private static final String LOOKUP = "if [ -n %2$s ]; then p=$(command -v %2$s 2>/dev/null)"
            + " && case $p in /*) echo \"%1$d $p\" ;; esac; fi;"
            + " for f in %3$s; do if [ -x \"$f\" ] && [ ! -d \"$f\" ]; then echo \"%1$d $f\"; fi; done";
    /** One command of a batch: its outputs and then its exit code in files of the batch's folder ($1), N.out... */
    private static final String BATCHED =
            "%2$s < /dev/null > \"$1/%1$d.out\" 2> \"$1/%1$d.err\"; echo $? > \"$1/%1$d.exit\"";

    private final ProcessStarter starter;
    private final Path supervisor;
    private final Path root;
    private final String runId;
    private final PhaseProcess.Owner owner;
    private final RunLease lease;
    private int count;
    private volatile long silenceMillis = PhaseProcess.HEARTBEAT_STALE_MILLIS;

    /** A short command and the file its output (stdout, then stderr) is also saved to. */
    public record Command(List<String> argv, Path saveTo) {
        public Command {
            argv = List.copyOf(argv);
        }
    }

    public ShortCommands(
            ProcessStarter starter,
            Path supervisor,
            Path envDir,
            String runId,
            PhaseProcess.Owner owner,
            RunLease lease) {
        this.lease = lease;
        this.starter = starter;
        this.supervisor = supervisor;
        this.root = envDir.resolve("commands");
        this.runId = runId;
        this.owner = owner;
    }

    /** How long a silent supervisor is given (the run's setting). */
    public ShortCommands silence(long millis) {
        this.silenceMillis = millis;
        return this;
    }

    /**
     * Runs ARGV to its end or its time limit; its output (stdout, then stderr) is also saved to SAVETO.
     * Exit -1: timed out; -2: could not be started (the output says why).
     */
    CommandOutput run(List<String> argv, Map<String, String> env, Path saveTo, int timeoutSeconds) {
        Path program = Path.of(argv.get(0)).getFileName();
        // "/" has no file name: the folder is then named after the whole argument (safe() cleans it)
        return run(program == null ? argv.get(0) : program.toString(), argv, env, saveTo, timeoutSeconds);
    }

    /** {@link #run(List, Map, Path, int)} in a folder named after LABEL. */
    private synchronized CommandOutput run(
            String label, List<String> argv, Map<String, String> env, Path saveTo, int timeoutSeconds) {
        String name = ++count + "-" + safe(label);
        Path dir = root.resolve(name);
        try {
            PhaseProcess.Outcome outcome = start(dir, name, argv, env, timeoutSeconds);
            String output = read(dir.resolve(RunLayout.STDOUT)) + read(dir.resolve(RunLayout.STDERR));
            save(saveTo, output);
            return switch (outcome.status()) {
                case PhaseResult.TIMED_OUT ->
                    new CommandOutput(-1, output + "\n(timed out after " + timeoutSeconds + " s)");
                case PhaseResult.PASSED, PhaseResult.FAILED ->
                    new CommandOutput(outcome.exitCode() == null ? -2 : outcome.exitCode(), output);
                default -> new CommandOutput(-2, notRun(argv, outcome));
            };
        } catch (IOException e) {
            return new CommandOutput(-2, "cannot run " + argv.get(0) + ": " + e.getMessage());
        }
    }

    /**
     * Runs COMMANDS one after the other in one start of the supervisor, each to its end, with its own outputs and
     * exit code, as {@link #run} would give them; TIMEOUT_SECONDS bounds them all: the one that had not ended then
     * timed out (-1), those after it did not run (-2), as with a failed start.
     */
    synchronized List<CommandOutput> runAll(List<Command> commands, Map<String, String> env, int timeoutSeconds) {
        String name = ++count + "-quick";
        Path dir = root.resolve(name);
        StringBuilder script = new StringBuilder();
        for (int i = 0; i < commands.size(); i++) {
            // a line each: sh's newline, whatever the platform's
            script.append(BATCHED.formatted(i + 1, words(commands.get(i).argv())))
                    .append('\n');
        }
        List<CommandOutput> outputs = new ArrayList<>();
        try {
            PhaseProcess.Outcome outcome =
                    start(dir, name, List.of("sh", "-c", script.toString(), "sh", dir.toString()), env, timeoutSeconds);
            String timedOut = null;
            for (int i = 0; i < commands.size(); i++) {
                Command command = commands.get(i);
                String output = read(dir.resolve((i + 1) + ".out")) + read(dir.resolve((i + 1) + ".err"));
                save(command.saveTo(), output);
                Integer exit = exitCode(dir.resolve((i + 1) + ".exit"));
                if (exit != null) {
                    outputs.add(new CommandOutput(exit, output));
                } else if (timedOut != null) {
                    outputs.add(new CommandOutput(
                            -2, "cannot run " + command.argv().get(0) + ": " + timedOut + " timed out before it"));
                } else if (outcome.status().equals(PhaseResult.TIMED_OUT)) {
                    timedOut = command.argv().get(0);
                    outputs.add(new CommandOutput(-1, output + "\n(timed out after " + timeoutSeconds + " s)"));
                } else {
                    outputs.add(new CommandOutput(-2, notRun(command.argv(), outcome)));
                }
            }
        } catch (IOException e) {
            for (int i = outputs.size(); i < commands.size(); i++) {
                outputs.add(new CommandOutput(
                        -2, "cannot run " + commands.get(i).argv().get(0) + ": " + e.getMessage()));
            }
        }
        return outputs;
    }

    private PhaseProcess.Outcome start(
            Path dir, String name, List<String> argv, Map<String, String> env, int timeoutSeconds) throws IOException {
        requireRoot();
        Files.createDirectories(dir);
        PhaseProcess process =
                new PhaseProcess(starter, supervisor, dir, env, null, owner, lease).silence(silenceMillis);
        PhaseProcess.Outcome outcome = process.run(
                new PhaseSettings(timeoutSeconds, null, false, 2, 0, runId + "-env-" + name, false),
                3600,
                elapsed -> {},
                () -> null,
                argv,
                Map.of(),
                List.of());
        if (Thread.currentThread().isInterrupted()) {
            throw new RunException("interrupted while probing " + argv.get(0));
        }
        requireRoot();
        return outcome;
    }

    private static String notRun(List<String> argv, PhaseProcess.Outcome outcome) {
        return "cannot run " + argv.get(0) + ": " + (outcome.note() == null ? outcome.status() : outcome.note());
    }

    private static void save(Path saveTo, String output) throws IOException {
        Path saveIn = saveTo.toAbsolutePath().getParent();
        if (saveIn != null) {
            Files.createDirectories(saveIn);
        }
        Files.writeString(saveTo, output, StandardCharsets.UTF_8);
    }

    /** The exit code a batched command left, or null: it did not end (or the file is not one it wrote). */
    private static Integer exitCode(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return null;
        }
        String text = Files.readString(file, StandardCharsets.UTF_8).strip();
        return text.matches("\\d{1,3}") ? Integer.valueOf(text) : null;
    }

    private static String words(List<String> argv) {
        return String.join(" ", argv.stream().map(PhaseScript::quote).toList());
    }

    /**
     * For each query, in order, the executables it names where the job runs: where the target's own PATH finds the
     * name (a container's PATH is its image's, which the build's environment does not show), then those of the
     * candidate files that are executables there. One command for all of them.
     */
    public List<Set<Path>> executables(List<ToolLocator.Query> queries, Map<String, String> env) {
        StringBuilder script = new StringBuilder();
        for (int i = 0; i < queries.size(); i++) {
            ToolLocator.Query query = queries.get(i);
            script.append(LOOKUP.formatted(
                            i,
                            PhaseScript.quote(query.name() == null ? "" : query.name()),
                            words(query.candidates().stream()
                                    .map(Path::toString)
                                    .toList())))
                    .append('\n');
        }
        script.append("true\n");
        CommandOutput found =
                run("lookup", List.of("sh", "-c", script.toString()), env, root.resolve("lookup.txt"), 30);
        if (found.exitCode() != 0) {
            throw new RunException("cannot look up tools where the job runs: " + found.firstLine());
        }
        List<Set<Path>> executables = new ArrayList<>();
        queries.forEach(query -> executables.add(new LinkedHashSet<>()));
        for (String line : found.output().split("\n")) {
            int space = line.indexOf(' ');
            if (space > 0 && line.substring(0, space).matches("\\d{1,4}")) {
                int index = Integer.parseInt(line.substring(0, space));
                String path = line.substring(space + 1).strip();
                if (index < queries.size() && !path.isEmpty()) {
                    executables.get(index).add(Path.of(path));
                }
            }
        }
        return executables;
    }

    /**
     * The commands' folder, made by the first command: when it is gone the run directory was deleted meanwhile (a
     * workspace cleanup while the check ran beside the first phase), and nothing may create it again (the runner then
     * says what happened).
     */
    private void requireRoot() throws IOException {
        if (count > 1 && !Files.isDirectory(root)) {
            throw new java.nio.file.NoSuchFileException(root.toString(), null, "the run directory was deleted");
        }
    }

    private static String safe(String name) {
        return name.replaceAll("[^A-Za-z0-9._-]", "_");
    }

    private static String read(Path file) throws IOException {
        if (!Files.isRegularFile(file)) {
            return "";
        }
        byte[] bytes = Files.readAllBytes(file);
        return new String(bytes, 0, Math.min(bytes.length, 1 << 20), StandardCharsets.UTF_8);
    }
}
