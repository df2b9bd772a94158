package io.jenkins.plugins.gpusanitizer.engine.run.environment;

import edu.umd.cs.findbugs.annotations.SuppressFBWarnings;
import io.jenkins.plugins.gpusanitizer.engine.run.RunException;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Finds the tools a run needs: an explicit path wins, else the PATH of the job's environment (so
 * stand-ins can replace the real tools), else the CUDA toolkit's bin folders. Whether a file is an
 * executable is asked where the job runs: inside a container that is the container's file system,
 * which this JVM does not see ({@link ShortCommands#executables}).
 */
public final class ToolLocator {
    private final List<Path> searchPath;
    private final List<Path> fallbacks;
    private final Lookup executables;

    public ToolLocator(List<Path> searchPath, List<Path> fallbacks) {
        this(searchPath, fallbacks, ToolLocator::localExecutables);
    }

    /** Which files are executables where the job runs; NAME is the tool's name, null for an explicit path. */
    public interface Lookup {
        /** The executables found, best first: here the candidates in order; in a container its own PATH's first. */
        Set<Path> executables(String name, List<Path> candidates);
    }

    ToolLocator(List<Path> searchPath, List<Path> fallbacks, Lookup executables) {
        this.searchPath = List.copyOf(searchPath);
        this.fallbacks = List.copyOf(fallbacks);
        this.executables = executables;
    }

    /** The same search, asked where the job runs. */
    public ToolLocator lookingWith(Lookup executables) {
        return new ToolLocator(searchPath, fallbacks, executables);
    }

    private static Set<Path> localExecutables(String name, List<Path> candidates) {
        Set<Path> found = new LinkedHashSet<>();
        for (Path candidate : candidates) {
            if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                found.add(candidate);
            }
        }
        return found;
    }

    /** PATH from the environment; CUDA_HOME/bin, CUDA_PATH/bin and /usr/local/cuda/bin as fallbacks. */
    @SuppressFBWarnings(
            value = "DMI_HARDCODED_ABSOLUTE_FILENAME",
            justification = "/usr/local/cuda/bin is where the CUDA toolkit installs by default: the last fallback,"
                    + " after PATH, CUDA_HOME and CUDA_PATH, for agents whose environment names none of them")
    public static ToolLocator fromEnvironment(Map<String, String> env) {
        List<Path> path = new ArrayList<>();
        String p = env.getOrDefault("PATH", "");
        for (String dir : p.split(File.pathSeparator)) {
            if (!dir.isBlank()) {
                path.add(Path.of(dir));
            }
        }
        Set<Path> fb = new LinkedHashSet<>();
        for (String var : List.of("CUDA_HOME", "CUDA_PATH")) {
            String v = env.get(var);
            if (v != null && !v.isBlank()) {
                fb.add(Path.of(v, "bin"));
            }
        }
        fb.add(Path.of("/usr/local/cuda/bin"));
        return new ToolLocator(path, new ArrayList<>(fb));
    }

    public Optional<Path> find(String name, Path explicit) {
        List<Path> candidates = new ArrayList<>();
        if (explicit != null) {
            candidates.add(explicit);
        } else {
            searchPath.forEach(dir -> candidates.add(dir.resolve(name)));
            fallbacks.forEach(dir -> candidates.add(dir.resolve(name)));
        }
        return executables.executables(explicit == null ? name : null, candidates).stream()
                .findFirst();
    }

    /** @throws RunException naming what is missing and where it looked */
    public Path require(String name, Path explicit, String option) {
        return find(name, explicit)
                .orElseThrow(() -> new RunException(
                        explicit != null
                                ? name + " not found: " + explicit + " is not an executable file (" + option + ")"
                                : name + " not found: looked in PATH (" + join(searchPath) + ") and " + join(fallbacks)
                                        + "; give " + option + " PATH"));
    }

    private static String join(List<Path> dirs) {
        String s = String.join(":", dirs.stream().map(Path::toString).toList());
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
