package org.jenkinsci;

// Compile-only signature stub of org.jenkinsci.Symbol: jenkinsci/lib-symbol-annotation, tag symbol-annotation-1.26
// (bundled by jenkins-core 2.555.3),
// src/main/java/org/jenkinsci/Symbol.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: @Indexed (annotation-indexer) is left out. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
@Documented
public @interface Symbol {
    String[] value();
}
