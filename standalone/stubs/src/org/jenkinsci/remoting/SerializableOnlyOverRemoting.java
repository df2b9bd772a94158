package org.jenkinsci.remoting;

// Compile-only signature stub of org.jenkinsci.remoting.SerializableOnlyOverRemoting: jenkinsci/remoting, tag
// 3355.v388858a_47b_33 (the remoting of jenkins-core 2.555.3),
// src/main/java/org/jenkinsci/remoting/SerializableOnlyOverRemoting.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.io.Serializable;

public interface SerializableOnlyOverRemoting extends Serializable {
    // default getChannelForSerialization(): left out
}
