package org.jenkinsci;

// Compile-only signature stub of symbol-annotation 1.26 (bundled in jenkins-core 2.555.3), written from the public API
// (see ../README.md). Never packaged.

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface Symbol {
    String[] value();
}
