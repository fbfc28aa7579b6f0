package io.zklock.core.internal.request;

import java.util.concurrent.CompletableFuture;

/** A started request, single or multi, as its caller sees it: how it ends, and how to withdraw it. */
public interface Request<T> {

    /** Completes once, with the grant or with why there is none. */
    CompletableFuture<T> result();

    /** Withdraws the request; false if it had already ended or been withdrawn. */
    boolean giveUp(Throwable reason);
}
