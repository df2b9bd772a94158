package com.google.common.util.concurrent;

// Compile-only signature stub of com.google.common.util.concurrent.FutureCallback: google/guava, tag v33.5.0 (guava
// 33.5.0-jre of jenkins-core 2.555.3; the repository is too large to fetch here: signature from the published API),
// guava/src/com/google/common/util/concurrent/FutureCallback.java.
// Only what the plugin uses, with the real modifiers, generics, checked exceptions and nullability;
// bodies throw. Never packaged (see ../README.md).

public interface FutureCallback<V> {
    void onSuccess(V result);

    void onFailure(Throwable t);
}
