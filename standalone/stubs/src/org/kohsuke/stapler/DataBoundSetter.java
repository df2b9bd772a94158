package org.kohsuke.stapler;

// Compile-only signature stub of org.kohsuke.stapler.DataBoundSetter: jenkinsci/stapler, commit 135bbbc (2026-08-20;
// jenkins-core 2.555.3 bundles 2076.v1b_a_c12445eb_e),
// core/src/main/java/org/kohsuke/stapler/DataBoundSetter.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD})
@Documented
public @interface DataBoundSetter {}
