package hudson.init;

// Compile-only signature stub of hudson.init.Initializer: jenkinsci/jenkins, tag jenkins-2.555.3,
// core/src/main/java/hudson/init/Initializer.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// the real one is also @Indexed (annotation-indexer, not here) and has requires, attains, displayName
// and fatal. Never packaged (see ../README.md).

import static java.lang.annotation.ElementType.METHOD;
import static java.lang.annotation.RetentionPolicy.RUNTIME;

import java.lang.annotation.Documented;
import java.lang.annotation.Retention;
import java.lang.annotation.Target;

@Documented
@Retention(RUNTIME)
@Target(METHOD)
public @interface Initializer {
    InitMilestone after() default InitMilestone.STARTED;

    InitMilestone before() default InitMilestone.COMPLETED;
}
