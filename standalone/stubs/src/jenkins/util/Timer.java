package jenkins.util;

// Compile-only signature stub of jenkins.util.Timer: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/jenkins/util/Timer.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.NonNull;
import java.util.concurrent.ScheduledExecutorService;

public class Timer {
    // as the real one: "Do not create this."
    private Timer() {}

    @NonNull
    public static synchronized ScheduledExecutorService get() {
        throw new RuntimeException("Stub!");
    }
}
