package io.jenkins.plugins.gpusanitizer.engine.run;

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
 * stand-ins can replace the real tools), else the CUDA toolkit's bin folders.
 */
public final class ToolLocator {
    private final List<Path> searchPath;
    private final List<Path> fallbacks;

    public ToolLocator(List<Path> searchPath, List<Path> fallbacks) {
        this.searchPath = List.copyOf(searchPath);
        this.fallbacks = List.copyOf(fallbacks);
    }

    /** PATH from the environment; CUDA_HOME/bin, CUDA_PATH/bin and /usr/local/cuda/bin as fallbacks. */
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
        if (explicit != null) {
            return Files.isExecutable(explicit) && !Files.isDirectory(explicit)
                    ? Optional.of(explicit)
                    : Optional.empty();
        }
        for (Path dir : searchPath) {
            Path c = dir.resolve(name);
            if (Files.isExecutable(c) && !Files.isDirectory(c)) {
                return Optional.of(c);
            }
        }
        for (Path dir : fallbacks) {
            Path c = dir.resolve(name);
            if (Files.isExecutable(c) && !Files.isDirectory(c)) {
                return Optional.of(c);
            }
        }
        return Optional.empty();
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
