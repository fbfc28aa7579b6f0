package io.zklock.spring.boot;

import org.springframework.context.ApplicationEvent;

/**
 * Published when a lock the starter's registry or ShedLock provider holds is lost while held:
 * its ZooKeeper session expired, or its node was deleted. Another process may hold the lock
 * from then on. Published on a ZooKeeper event thread: a listener must be quick.
 */
public class ZkLockLostEvent extends ApplicationEvent {
    private static final long serialVersionUID = 1L;

    /** What lost the lock. */
    public enum Kind {
        /** A Spring Integration registry lock; the name is its key. */
        REGISTRY_LOCK,
        /** A ShedLock job's run; the name is the job's name. */
        SHEDLOCK_JOB
    }

    /** What lost the lock. */
    private final Kind kind;
    /** The registry lock's key, or the job's name. */
    private final String name;
    /** The lost lease's fencing token. */
    private final long fencingToken;

    /**
     * @param source the registry or provider
     * @param kind what lost it
     * @param name the lock's key, or the job's name
     * @param fencingToken the lost lease's fencing token
     */
    public ZkLockLostEvent(Object source, Kind kind, String name, long fencingToken) {
        super(source);
        this.kind = kind;
        this.name = name;
        this.fencingToken = fencingToken;
    }

    /** {@return what lost the lock} */
    public Kind getKind() {
        return kind;
    }

    /** {@return the registry lock's key, or the job's name} */
    public String getName() {
        return name;
    }

    /** {@return the lost lease's fencing token} */
    public long getFencingToken() {
        return fencingToken;
    }

    @Override
    public String toString() {
        return "ZkLockLostEvent[" + kind + " '" + name + "', fencing token " + fencingToken + "]";
    }
}
