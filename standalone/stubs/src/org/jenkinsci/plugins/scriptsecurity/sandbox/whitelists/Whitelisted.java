package org.jenkinsci.plugins.scriptsecurity.sandbox.whitelists;

// Compile-only signature stub of org.jenkinsci.plugins.scriptsecurity.sandbox.whitelists.Whitelisted:
// jenkinsci/script-security-plugin, commit a5f0130a (bom-2.555.x 6916 names 1412.v7737b_3405f86, whose
// commit the snapshot read lacks; the annotation is the same in every release read),
// src/main/java/org/jenkinsci/plugins/scriptsecurity/sandbox/whitelists/Whitelisted.java.
// Never packaged (see ../README.md).

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Target({ElementType.METHOD, ElementType.CONSTRUCTOR, ElementType.FIELD})
@Retention(RetentionPolicy.RUNTIME)
public @interface Whitelisted {
    boolean restricted() default false;
}
