package hudson;

// Compile-only signature stub of hudson.Extension: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/Extension.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw, except: @Indexed (annotation-indexer) is left out. Never packaged (see ../README.md).

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.TYPE, ElementType.FIELD, ElementType.METHOD})
@Documented
public @interface Extension {
    double ordinal() default 0;

    boolean optional() default false;
}
