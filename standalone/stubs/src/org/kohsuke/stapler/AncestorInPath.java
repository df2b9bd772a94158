package org.kohsuke.stapler;

// Compile-only signature stub of org.kohsuke.stapler.AncestorInPath: jenkinsci/stapler, commit 135bbbc (2026-08-20;
// jenkins-core 2.555.3 bundles 2076.v1b_a_c12445eb_e),
// core/src/main/java/org/kohsuke/stapler/AncestorInPath.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: @InjectedParameter and its handler are left out. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.PARAMETER)
@Documented
public @interface AncestorInPath {}
