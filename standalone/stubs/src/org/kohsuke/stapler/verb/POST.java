package org.kohsuke.stapler.verb;

// Compile-only signature stub of org.kohsuke.stapler.verb.POST: jenkinsci/stapler, commit 135bbbc (2026-08-20;
// jenkins-core 2.555.3 bundles 2076.v1b_a_c12445eb_e),
// core/src/main/java/org/kohsuke/stapler/verb/POST.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: @InterceptorAnnotation is left out. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Target(ElementType.METHOD)
@Retention(RetentionPolicy.RUNTIME)
@Documented
public @interface POST {}
