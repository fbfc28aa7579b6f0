package io.zklock.core.observe;

import java.util.function.Consumer;

/**
 * The engine's side of one observed request: the observers that were installed for its client
 * when it began ({@link LockObservers#requestStarted}), each with the {@link RequestObserver} it
 * returned, told of the request's end and of its nodes' grants and changes. The engine holds
 * none when nobody observes: it never makes one then.
 */
public final class ObservedRequest {
    private final LockObservers.Entry[] audience;
    private final RequestObserver[] followers;     // one per audience entry, null where it follows nothing
    private final String traceId;

    ObservedRequest(LockObservers.Entry[] audience, RequestObserver[] followers, String traceId) {
        this.audience = audience;
        this.followers = followers;
        this.traceId = traceId;
    }

    /** {@return the trace id to write into the request's nodes' owner data, or null} */
    public String traceId() {
        return traceId;
    }

    /**
     * The request waits behind {@code node}.
     *
     * @param node the node it watches, as its data names its owner
     */
    public void waitsBehind(LockObserver.WaitedNode node) {
        tell(null, follower -> follower.waitsBehind(node));
    }

    /**
     * A granted node of the request waits out its lock's lock-delay.
     *
     * @param event the node's lock, mode and the delay
     */
    public void lockDelayStarted(LockObserver.LockDelayEvent event) {
        tell(observer -> observer.lockDelayStarted(event), follower -> { });
    }

    /**
     * The request ended; told before its caller hears of it.
     *
     * @param event what ended and how
     */
    public void ended(LockObserver.AcquireEvent event) {
        tell(observer -> observer.acquireEnded(event), follower -> follower.ended(event));
    }

    /**
     * A node of the request was granted.
     *
     * @param event its lock, mode, state {@code HELD} and no time held
     */
    public void leaseGranted(LockObserver.LeaseEvent event) {
        tell(observer -> observer.leaseGranted(event), follower -> follower.leaseGranted(event));
    }

    /**
     * A node of the request changed state.
     *
     * @param event the change
     */
    public void leaseChanged(LockObserver.LeaseEvent event) {
        tell(observer -> observer.leaseChanged(event), follower -> follower.leaseChanged(event));
    }

    private void tell(Consumer<LockObserver> toObserver, Consumer<RequestObserver> toFollower) {
        for (int i = 0; i < audience.length; i++) {
            LockObservers.Entry entry = audience[i];
            if (!entry.installed()) {
                continue;
            }
            try {
                if (toObserver != null) {
                    toObserver.accept(entry.observer());
                }
                if (followers[i] != null) {
                    toFollower.accept(followers[i]);
                }
            } catch (RuntimeException e) {
                entry.threw(e);
            }
        }
    }

    @Override
    public String toString() {
        return "ObservedRequest[" + audience.length + " observers" + (traceId == null ? "" : ", trace " + traceId) + "]";
    }
}
