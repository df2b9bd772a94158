package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import io.jenkins.plugins.gpusanitizer.engine.model.RunLayout;
import io.jenkins.plugins.gpusanitizer.engine.run.PhaseResult;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import io.jenkins.plugins.gpusanitizer.engine.run.lock.RunLease;
import io.jenkins.plugins.gpusanitizer.engine.run.process.PhaseProcess;
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
 * supervisor as the phases, so that inside a container they see the container's tools. Each
 * command's folder ({@code env/commands/N-NAME/}) keeps its script and outputs.
 */
public final class ShortCommands {
    /** Prints where the target's own PATH finds the name ($0), as its sh would, then the executable candidates. */
    private static final String EXECUTABLES = "if [ -n \"$0\" ]; then command -v \"$0\" 2>/dev/null | grep '^/'; fi;"
            + " for f; do if [ -x \"$f\" ] && [ ! -d \"$f\" ]; then echo \"$f\"; fi; done; true";

    private final ProcessStarter starter;
    private final Path supervisor;
    private final Path root;
    private final String runId;
    private final PhaseProcess.Owner owner;
    private final RunLease lease;
    private int count;
    private volatile long silenceMillis = PhaseProcess.HEARTBEAT_STALE_MILLIS;

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
    synchronized CommandOutput run(List<String> argv, Map<String, String> env, Path saveTo, int timeoutSeconds) {
        Path program = Path.of(argv.get(0)).getFileName();
        // "/" has no file name: the folder is then named after the whole argument (safe() cleans it)
        String name = ++count + "-" + safe(program == null ? argv.get(0) : program.toString());
        Path dir = root.resolve(name);
        try {
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
            String output = read(dir.resolve(RunLayout.STDOUT)) + read(dir.resolve(RunLayout.STDERR));
            requireRoot();
            Path saveIn = saveTo.toAbsolutePath().getParent();
            if (saveIn != null) {
                Files.createDirectories(saveIn);
            }
            Files.writeString(saveTo, output, StandardCharsets.UTF_8);
            return switch (outcome.status()) {
                case PhaseResult.TIMED_OUT ->
                    new CommandOutput(-1, output + "\n(timed out after " + timeoutSeconds + " s)");
                case PhaseResult.PASSED, PhaseResult.FAILED ->
                    new CommandOutput(outcome.exitCode() == null ? -2 : outcome.exitCode(), output);
                default ->
                    new CommandOutput(
                            -2,
                            "cannot run " + argv.get(0) + ": "
                                    + (outcome.note() == null ? outcome.status() : outcome.note()));
            };
        } catch (IOException e) {
            return new CommandOutput(-2, "cannot run " + argv.get(0) + ": " + e.getMessage());
        }
    }

    /**
     * Where the target's own PATH finds the tool NAME (null for an explicit path) — a container's PATH
     * is its image's, which the build's environment does not show — then those of the candidate files
     * that are executables there; in that order.
     */
    public Set<Path> executables(String name, List<Path> candidates, Map<String, String> env) {
        List<String> argv = new ArrayList<>(List.of("sh", "-c", EXECUTABLES, name == null ? "" : name));
        candidates.forEach(candidate -> argv.add(candidate.toString()));
        CommandOutput found = run(argv, env, root.resolve("lookup.txt"), 30);
        if (found.exitCode() != 0) {
            throw new RunException("cannot look up tools where the job runs: " + found.firstLine());
        }
        Set<Path> executables = new LinkedHashSet<>();
        for (String line : found.output().split("\n")) {
            if (!line.isBlank()) {
                executables.add(Path.of(line.strip()));
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
