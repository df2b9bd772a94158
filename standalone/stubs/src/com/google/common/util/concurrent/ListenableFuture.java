package com.google.common.util.concurrent;

// Compile-only signature stub of com.google.common.util.concurrent.ListenableFuture: google/guava, tag v33.5.0
// (guava 33.5.0-jre of jenkins-core 2.555.3; signature from the published API),
// guava/src/com/google/common/util/concurrent/ListenableFuture.java: what StepContext.saveState returns.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

import java.util.concurrent.Executor;
import java.util.concurrent.Future;

public interface ListenableFuture<V> extends Future<V> {
    void addListener(Runnable listener, Executor executor);
}
