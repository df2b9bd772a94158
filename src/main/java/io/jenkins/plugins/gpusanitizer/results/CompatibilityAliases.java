package io.jenkins.plugins.gpusanitizer.results;

import hudson.init.InitMilestone;
import hudson.init.Initializer;
import hudson.model.Run;
import hudson.util.XStream2;
import java.util.Map;

/**
 * Keeps the build.xml files of earlier versions loading after the Jenkins layer moved into {@code
 * steps} and {@code results} (issue #16): XStream reads each old class name as its new class, as
 * warnings-ng's {@code IssuesRecorder.Descriptor.addAliases} does. Only for reading: new builds are
 * written with the new names. Registered before the plugins start, so before any build is loaded.
 */
public final class CompatibilityAliases {
    /** Old fully qualified class name to the class that reads it now. */
    static final Map<String, Class<?>> OLD_NAMES = Map.of(
            "io.jenkins.plugins.gpusanitizer.GpuSanitizeAction", GpuSanitizeBuildAction.class,
            // never in build.xml (a transient action of the job page), aliased all the same
            "io.jenkins.plugins.gpusanitizer.GpuSanitizeJobAction", GpuSanitizeJobAction.class);

    private CompatibilityAliases() {}

    @Initializer(before = InitMilestone.PLUGINS_STARTED)
    public static void addAliases() {
        addAliases(Run.XSTREAM2);
    }

    static void addAliases(XStream2 xstream) {
        OLD_NAMES.forEach(xstream::addCompatibilityAlias);
    }
}
