package org.kohsuke.stapler;

// Compile-only signature stub of stapler 2107.v8dfcb_e8ed317 (bundled in jenkins-core 2.555.3), written from the public
// API (see ../README.md). Never packaged.

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.CONSTRUCTOR)
public @interface DataBoundConstructor {}
