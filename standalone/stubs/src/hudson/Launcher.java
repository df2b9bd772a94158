package hudson;

// Compile-only signature stub of hudson.Launcher: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/Launcher.java (launch() and ProcStarter read at tag jenkins-2.555.1, the newest
// 2.555.x tag in the snapshot: cmds(List), envs(Map), pwd(String), quiet, stdout(TaskListener), join()); getChannel()
// and kill(Map) read at tag jenkins-2.555.3 (Launcher.java:140-141, 789).
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.model.TaskListener;
import hudson.remoting.VirtualChannel;
import java.io.IOException;
import java.util.List;
import java.util.Map;

public abstract class Launcher {
    // the real constructors are protected (no implicit public one): Launcher.java:117-130
    protected Launcher(@NonNull TaskListener listener, @CheckForNull VirtualChannel channel) {
        throw new RuntimeException("Stub!");
    }

    public boolean isUnix() {
        throw new RuntimeException("Stub!");
    }

    @CheckForNull
    public VirtualChannel getChannel() {
        throw new RuntimeException("Stub!");
    }

    public abstract void kill(Map<String, String> modelEnvVars) throws IOException, InterruptedException;

    @NonNull
    public final ProcStarter launch() {
        throw new RuntimeException("Stub!");
    }

    public final class ProcStarter {
        public ProcStarter cmds(List<String> args) {
            throw new RuntimeException("Stub!");
        }

        public ProcStarter quiet(boolean quiet) {
            throw new RuntimeException("Stub!");
        }

        public ProcStarter pwd(@NonNull String workDir) {
            throw new RuntimeException("Stub!");
        }

        public ProcStarter stdout(@NonNull TaskListener out) {
            throw new RuntimeException("Stub!");
        }

        public ProcStarter envs(@NonNull Map<String, String> overrides) {
            throw new RuntimeException("Stub!");
        }

        public int join() throws IOException, InterruptedException {
            throw new RuntimeException("Stub!");
        }
    }
}
