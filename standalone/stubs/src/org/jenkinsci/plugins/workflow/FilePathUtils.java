package org.jenkinsci.plugins.workflow;

// Compile-only signature stub of org.jenkinsci.plugins.workflow.FilePathUtils:
// jenkinsci/workflow-api-plugin, commit cbc88d9 (bom-2.555.x 6916 manages 1413.v2ff1a_5e720fa_),
// src/main/java/org/jenkinsci/plugins/workflow/FilePathUtils.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.NonNull;
import hudson.FilePath;

public class FilePathUtils {
    private FilePathUtils() {}

    public static @CheckForNull String getNodeNameOrNull(@NonNull FilePath f) {
        throw new RuntimeException("Stub!");
    }

    public static @CheckForNull FilePath find(@NonNull String node, @NonNull String path) {
        throw new RuntimeException("Stub!");
    }
}
