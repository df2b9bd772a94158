package org.springframework.security.core;

// Compile-only signature stub of org.springframework.security.core.Authentication:
// spring-projects/spring-security, tag 6.5.9 (the spring-security-bom of jenkins-core 2.555.3),
// core/src/main/java/org/springframework/security/core/Authentication.java.
// Only what the plugin uses (the type itself; Principal and Serializable supertypes kept), with the real
// modifiers; no members are used. Never packaged (see ../README.md).

import java.io.Serializable;
import java.security.Principal;

public interface Authentication extends Principal, Serializable {}
