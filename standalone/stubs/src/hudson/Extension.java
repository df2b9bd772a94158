package hudson;

// Compile-only signature stub of jenkins-core 2.555.3, written from the public API (see ../README.md). Never packaged.

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD})
public @interface Extension {
    double ordinal() default 0;

    boolean optional() default false;
}
