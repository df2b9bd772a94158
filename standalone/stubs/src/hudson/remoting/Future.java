package hudson.remoting;

// Compile-only signature stub of hudson.remoting.Future: jenkinsci/remoting, tag 3355.v388858a_47b_33 (the
// remoting of jenkins-core 2.555.3),
// src/main/java/hudson/remoting/Future.java: what FilePath.actAsync returns, an alias of java.util.concurrent.Future.
// Never packaged (see ../README.md).

public interface Future<V> extends java.util.concurrent.Future<V> {}
