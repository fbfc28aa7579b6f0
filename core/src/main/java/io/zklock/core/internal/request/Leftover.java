package io.zklock.core.internal.request;

import java.util.concurrent.CompletableFuture;

import io.zklock.core.internal.Cleanup;

/** What a NodeCreation's call in flight may leave in the directory, for its stop() to clean up. */
sealed interface Leftover {
    /** Nothing to clean up. */
    record Nothing() implements Leftover { }

    /** A call whose reply says what it made: the reply's handler cleans up. */
    record ToldByReply() implements Leftover { }

    /** A node that exists. */
    record Node(String path) implements Leftover { }

    /** A transaction whose node may exist: swept by its uuid. */
    record Transaction(String uuid) implements Leftover { }

    /** {@return the clean-up of what is left, completed once it was answered; null when a reply's handler does it} */
    default CompletableFuture<Void> cleanUp(Cleanup cleanup) {
        if (this instanceof Node node) {
            return cleanup.delete(node.path());
        }
        if (this instanceof Transaction t) {
            return cleanup.sweep(t.uuid());
        }
        return this instanceof Nothing ? CompletableFuture.completedFuture(null) : null;
    }

    /** {@return what a reply that came after the stop left: its created node, else its unresolved transaction, else nothing} */
    static Leftover after(String createdPath, String unresolvedUuid) {
        return createdPath != null ? new Node(createdPath) : unresolvedUuid != null ? new Transaction(unresolvedUuid) : new Nothing();
    }
}
