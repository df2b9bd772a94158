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
import java.util.concurrent.ConcurrentHashMap;

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
    /** What each lookup found: a tool is looked up once per run, and {@link #lookUp} asks for several at once. */
    private final Map<Query, Optional<Path>> found = new ConcurrentHashMap<>();

    public ToolLocator(List<Path> searchPath, List<Path> fallbacks) {
        this(searchPath, fallbacks, ToolLocator::localExecutables);
    }

    /**
     * A tool to look for: NAME is its name, null for an explicit path; CANDIDATES the files that would be it, best
     * first.
     */
    public record Query(String name, List<Path> candidates) {
        public Query {
            candidates = List.copyOf(candidates);
        }
    }

    /** A tool a run needs: its name and the path the user gave for it (null: searched for). */
    public record Wanted(String name, Path explicit) {}

    /** Which files are executables where the job runs. */
    public interface Lookup {
        /**
         * For each query, in order, the executables found, best first: here the candidates in order; in a
         * container its own PATH's first. One call for all: where the job runs in a container it is one command.
         */
        List<Set<Path>> executables(List<Query> queries);
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

    private static List<Set<Path>> localExecutables(List<Query> queries) {
        List<Set<Path>> all = new ArrayList<>();
        for (Query query : queries) {
            Set<Path> executables = new LinkedHashSet<>();
            for (Path candidate : query.candidates()) {
                if (Files.isExecutable(candidate) && !Files.isDirectory(candidate)) {
                    executables.add(candidate);
                }
            }
            all.add(executables);
        }
        return all;
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

    /** Looks up those of TOOLS not looked up yet, all in one ask; {@link #find} and {@link #require} then know them. */
    public synchronized void lookUp(List<Wanted> tools) {
        List<Query> queries = new ArrayList<>();
        for (Wanted tool : tools) {
            Query query = query(tool.name(), tool.explicit());
            if (!found.containsKey(query) && !queries.contains(query)) {
                queries.add(query);
            }
        }
        if (queries.isEmpty()) {
            return;
        }
        List<Set<Path>> answers = executables.executables(queries);
        for (int i = 0; i < queries.size(); i++) {
            found.put(queries.get(i), answers.get(i).stream().findFirst());
        }
    }

    public Optional<Path> find(String name, Path explicit) {
        Query query = query(name, explicit);
        Optional<Path> known = found.get(query);
        if (known != null) {
            return known;
        }
        lookUp(List.of(new Wanted(name, explicit)));
        return found.get(query);
    }

    private Query query(String name, Path explicit) {
        List<Path> candidates = new ArrayList<>();
        if (explicit != null) {
            candidates.add(explicit);
        } else {
            searchPath.forEach(dir -> candidates.add(dir.resolve(name)));
            fallbacks.forEach(dir -> candidates.add(dir.resolve(name)));
        }
        return new Query(explicit == null ? name : null, candidates);
    }

    /** @throws RunException naming what is missing and where it looked */
    public Path require(String name, Path explicit, String option) {
        return find(name, explicit).orElseThrow(() -> missing(name, explicit, option));
    }

    /** The one-line error for a tool that is not found (OPTION: the option that names it). */
    public RunException missing(String name, Path explicit, String option) {
        return new RunException(
                explicit != null
                        ? name + " not found: " + explicit + " is not an executable file (" + option + ")"
                        : name + " not found: looked in PATH (" + join(searchPath) + ") and " + join(fallbacks)
                                + "; give " + option + " PATH");
    }

    private static String join(List<Path> dirs) {
        String s = String.join(":", dirs.stream().map(Path::toString).toList());
        return s.length() > 300 ? s.substring(0, 300) + "..." : s;
    }
}
