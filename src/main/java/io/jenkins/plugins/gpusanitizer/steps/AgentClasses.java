package io.jenkins.plugins.gpusanitizer.steps;

import io.jenkins.plugins.gpusanitizer.engine.run.Runner;
import io.jenkins.plugins.gpusanitizer.results.AgentSummary;
import io.jenkins.plugins.gpusanitizer.results.Summaries;
import java.io.File;
import java.io.IOException;
import java.net.URISyntaxException;
import java.net.URL;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.CodeSource;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeSet;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;
import java.util.stream.Stream;

/**
 * The classes a run's thread on the agent may need, loaded before the run starts (issue #41, 6). On an agent the
 * plugin's classes (and the libraries it takes from other plugins: Jackson, Woodstox) are loaded lazily, each
 * through the remoting channel of the call that first needs it (remoting's {@code RemoteClassLoader}: {@code
 * prefetchClassReference} asks the controller by {@code proxy.fetch3}, a remote call). A run outlives its channel
 * on purpose (a controller restart, an agent reconnect): its thread keeps the old channel's class loader, whose
 * remote calls fail once that channel is closed, so a class first needed after the wait, such as {@code RunReport}
 * when the run ends, failed with {@code NoClassDefFoundError}. {@link AgentRun.Start} therefore loads every class
 * of the engine and of those libraries, and the files the engine reads ({@link Runner#preloadResources}), while
 * its call holds the channel open. The controller lists them ({@link #names}): the agent cannot list a remote jar.
 */
final class AgentClasses {
    /** The code the run's thread runs: the engine's jar (or folder) and the libraries it calls. */
    static final List<Class<?>> CODE = List.of(
            Runner.class,
            com.fasterxml.jackson.databind.ObjectMapper.class,
            com.fasterxml.jackson.core.JsonFactory.class,
            com.fasterxml.jackson.annotation.JsonProperty.class,
            com.ctc.wstx.stax.WstxInputFactory.class,
            org.codehaus.stax2.XMLStreamReader2.class);

    /** The plugin's own classes of the agent side outside the engine (the run's thread and its answers). */
    static final List<Class<?>> AGENT_SIDE = List.of(
            AgentRun.class,
            AgentProgress.class,
            AgentProgress.State.class,
            AgentRunFolder.class,
            AgentRunFolder.Sealed.class,
            SecretMasker.class,
            ReconnectingStarter.class,
            AgentSummary.class,
            Summaries.class);

    private static final String ENGINE = "io/jenkins/plugins/gpusanitizer/engine/";

    private AgentClasses() {}

    /** On the controller: the names of the classes to load on the agent before a run starts. */
    static ArrayList<String> names() {
        TreeSet<String> names = new TreeSet<>();
        for (Class<?> code : CODE) {
            String prefix = code == Runner.class ? ENGINE : "";
            names.addAll(classesBeside(code, prefix));
        }
        for (Class<?> agentSide : AGENT_SIDE) {
            names.add(agentSide.getName());
        }
        return new ArrayList<>(names);
    }

    /**
     * On the agent: loads each class (not initialising it) through this class's loader, while the channel that
     * serves it is open; a class that does not load here (one a run never needs) is left out.
     *
     * @return how many loaded
     */
    static int load(List<String> names, ClassLoader loader) {
        int loaded = 0;
        for (String name : names) {
            try {
                Class.forName(name, false, loader);
                loaded++;
            } catch (ClassNotFoundException | LinkageError e) {
                // not on this agent's path (an optional dependency): the run does not use it
            }
        }
        return loaded;
    }

    /** The classes of the jar or folder {@code code} came from, whose resource names start with {@code prefix}. */
    static List<String> classesBeside(Class<?> code, String prefix) {
        CodeSource source = code.getProtectionDomain().getCodeSource();
        URL location = source == null ? null : source.getLocation();
        if (location == null) {
            return List.of();
        }
        List<String> names = new ArrayList<>();
        try {
            Path path = Path.of(location.toURI());
            if (Files.isDirectory(path)) {
                try (Stream<Path> walk = Files.walk(path.resolve(prefix.isEmpty() ? "." : prefix))) {
                    walk.map(file -> path.relativize(file).toString().replace(File.separatorChar, '/'))
                            .forEach(resource -> addClass(resource, prefix, names));
                }
            } else {
                try (JarFile jar = new JarFile(path.toFile())) {
                    for (JarEntry entry : java.util.Collections.list(jar.entries())) {
                        addClass(entry.getName(), prefix, names);
                    }
                }
            }
        } catch (IOException | URISyntaxException | IllegalArgumentException e) {
            // a code source that is no file (a nested jar): its classes load lazily, as before
        }
        return names;
    }

    private static void addClass(String resource, String prefix, List<String> names) {
        if (resource.startsWith(prefix)
                && resource.endsWith(".class")
                && !resource.startsWith("META-INF/")
                && !resource.endsWith("module-info.class")
                && !resource.endsWith("package-info.class")) {
            names.add(
                    resource.substring(0, resource.length() - ".class".length()).replace('/', '.'));
        }
    }
}
