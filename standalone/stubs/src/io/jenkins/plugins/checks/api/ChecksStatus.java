package io.jenkins.plugins.checks.api;

// Compile-only signature stub of io.jenkins.plugins.checks.api.ChecksStatus: jenkinsci/checks-api-plugin, tag
// 415.vf022234a_931d (bom-2.555.x 6916),
// src/main/java/io/jenkins/plugins/checks/api/ChecksStatus.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public enum ChecksStatus {
    NONE,
    QUEUED,
    IN_PROGRESS,
    COMPLETED
}
