package io.jenkins.plugins.gpusanitizer.engine.run.process;

import java.io.File;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Starts the supervisors on this machine, as children of this JVM (the CLI); with a prefix (such as
 * {@code docker exec CONTAINER}) every command goes through it, as a decorated launcher's do.
 */
public final class LocalProcessStarter implements ProcessStarter {
    private final List<Process> started = new CopyOnWriteArrayList<>();
    private final List<String> prefix;

    public LocalProcessStarter() {
        this(List.of());
    }

    /** @param prefix the command every start goes through (it runs the rest of its arguments) */
    public LocalProcessStarter(List<String> prefix) {
        this.prefix = List.copyOf(prefix);
    }

    @Override
    public void start(String script, String directory, Map<String, String> env, String workDir) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(ProcessStarter.command(script, directory));
        ProcessBuilder builder = new ProcessBuilder(command)
                .directory(workDir == null ? null : new File(workDir))
                .redirectErrorStream(true)
                .redirectOutput(new File(directory, "supervisor.log"))
                .redirectInput(ProcessBuilder.Redirect.from(new File("/dev/null")));
        builder.environment().clear();
        builder.environment().putAll(env);
        started.add(builder.start());
        started.removeIf(process -> !process.isAlive());
    }

    @Override
    public boolean sharesFileSystem() {
        return prefix.isEmpty();
    }

    @Override
    public void killAll() {
        started.forEach(process -> {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        });
    }

    @Override
    public String describe() {
        return prefix.isEmpty() ? "local" : "through " + String.join(" ", prefix);
    }
}
