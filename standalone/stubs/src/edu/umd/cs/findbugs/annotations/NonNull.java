package edu.umd.cs.findbugs.annotations;

// Compile-only signature stub of edu.umd.cs.findbugs.annotations.NonNull: spotbugs/spotbugs, commit 9b8b60c
// (2026-08-19; unchanged for years, bundled by jenkins-core 2.555.3),
// spotbugs-annotations/src/main/java/edu/umd/cs/findbugs/annotations/NonNull.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: the javax.annotation meta-annotations (jsr305) are left out. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Documented
@Target({ElementType.FIELD, ElementType.METHOD, ElementType.PARAMETER, ElementType.LOCAL_VARIABLE})
@Retention(RetentionPolicy.CLASS)
public @interface NonNull {}
