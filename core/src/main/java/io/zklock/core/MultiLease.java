package io.zklock.core;

import java.util.List;

/**
 * The lease of a multi-lock: one component lease per lock, in the order the locks were given,
 * each with its own fencing token. Its state is the worst of theirs (LOST over SUSPENDED over
 * HELD); closing it releases every component (see the multi-lock's documentation for re-entry).
 */
public interface MultiLease extends Lease {

    /** {@return the component leases, in the order of the locks} */
    List<Lease> components();

    /**
     * The first component's node; see {@link #components()} for the others.
     *
     * @return the first component's node path
     */
    @Override
    String nodePath();

    /**
     * The largest of the components' tokens. It fences no single resource: guard each
     * resource with its own component's token ({@link #components()}).
     *
     * @return the largest component token
     */
    @Override
    long fencingToken();
}
