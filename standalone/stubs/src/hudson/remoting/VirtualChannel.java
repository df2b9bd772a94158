package hudson.remoting;

// Compile-only signature stub of hudson.remoting.VirtualChannel: jenkinsci/remoting, tag 3355.v388858a_47b_33 (the
// remoting of jenkins-core 2.555.3),
// src/main/java/hudson/remoting/VirtualChannel.java (export read at fa5f12a8, the snapshot's head).
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import edu.umd.cs.findbugs.annotations.CheckForNull;
import edu.umd.cs.findbugs.annotations.Nullable;

public interface VirtualChannel {
    // call, callAsync, close, join, syncLocalIO: not used by the plugin, left out

    @Nullable
    <T> T export(Class<T> type, @CheckForNull T instance);
}
