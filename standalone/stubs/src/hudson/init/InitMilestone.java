package hudson.init;

// Compile-only signature stub of hudson.init.InitMilestone: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/init/InitMilestone.java.
// The constants in the real order; the real enum implements org.jvnet.hudson.reactor.Milestone (not
// here) and takes each milestone's message. Never packaged (see ../README.md).

public enum InitMilestone {
    STARTED,
    PLUGINS_LISTED,
    PLUGINS_PREPARED,
    PLUGINS_STARTED,
    EXTENSIONS_AUGMENTED,
    SYSTEM_CONFIG_LOADED,
    SYSTEM_CONFIG_ADAPTED,
    JOB_LOADED,
    JOB_CONFIG_ADAPTED,
    COMPLETED
}
