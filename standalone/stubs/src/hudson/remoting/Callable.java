package hudson.remoting;

// Compile-only signature stub of hudson.remoting.Callable: jenkinsci/remoting, tag 3355.v388858a_47b_33
// (the remoting of jenkins-core 2.555.3),
// src/main/java/hudson/remoting/Callable.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// declared so that FilePath.act has both of its real overloads (act(any()) is ambiguous there, so here).
// Never packaged (see ../README.md).

import java.io.Serializable;
import org.jenkinsci.remoting.RoleSensitive;

public interface Callable<V, T extends Throwable> extends Serializable, RoleSensitive {
    V call() throws T;
}
