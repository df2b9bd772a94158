package org.jenkinsci.remoting;

// Compile-only signature stub of remoting (bundled in jenkins-core 2.555.3), written from the public API (see
// ../README.md). Never packaged.

public interface RoleSensitive {}
