package io.zklock.core.internal.zk;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import io.zklock.core.spi.queue.LockNode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.OpResult;
import org.apache.zookeeper.data.Stat;

/*
 * Sequence-gap inference (DESIGN §4): what one session knows of one lock directory, so that a
 * client that re-acquires a lock nobody else touched can decide its grant without listing.
 *
 * The facts it rests on, about ZooKeeper's directories:
 *   - a sequential child's number is the directory's count of child creations so far (deletes
 *     do not advance it). The Stat a client sees reports cversion = 2 x creations - children,
 *     so creations = (cversion + numChildren) / 2;
 *   - a directory that is deleted and made again has a new czxid and its count restarts at 0.
 *
 * The view holds, for one directory incarnation (its czxid), the next sequence number the
 * server will hand out and a superset of the children: the children some listing returned,
 * plus the nodes this session created since in transactions the view saw, minus the nodes
 * whose delete it saw confirmed (a confirmed delete is final: names carry a uuid).
 *
 * An inferring acquire creates its node in one multi() together with a setData on the
 * directory, whose Stat gives the directory's czxid, creation count and number of children as
 * the node is created. If the czxid is the view's and the node's number is the view's next
 * number, nobody created anything there since the view was exact, in the same incarnation: the
 * children are a subset of the view's superset. If their number also equals the superset's
 * size, they are exactly the superset, and the driver decides on the true children plus the
 * new node: drivers are only ever asked about exact children (see LockDriver). Anything else
 * falls back to a listing. The czxid check closes the
 * reaped-directory hazard: a container that empties can be reaped and made again by another
 * client with its count restarted, so that a number alone could match by coincidence while
 * strangers' nodes sit ahead.
 *
 * Updates come from replies: a listing and a transaction reply must be applied in the order the
 * server applied them, which holds because ZooKeeper answers one session's requests in order
 * and delivers every reply on that session's one event thread. A delete may be applied in any
 * order (it only shrinks the superset).
 */
public final class DirectoryView {
    /** Past this count, cversion arithmetic could overflow an int: no inference. */
    private static final int MAX_SEQUENCE = 1 << 30;

    /**
     * What the view knows, and so whether an acquire tries the inferring transaction (only in
     * EXACT). A listing makes the view exact; a reply it cannot follow makes it inexact; a
     * failed inference marks the directory contended (others are active here) until a plain
     * create on an exact view gets the number expected next; a refused transaction is final.
     */
    private enum State {
        /** No listing since the last reply the view could not follow. */
        UNKNOWN,
        /** The fields are exact: the inferring transaction is worth trying. */
        EXACT,
        /** An inference failed, and no listing came since. */
        CONTENDED,
        /** An inference failed; the fields are exact again, but the plain path is kept until a plain create proves a quiet turn. */
        CONTENDED_EXACT,
        /** The server refused the transaction itself (e.g. ACL): never tried here again. */
        REFUSED
    }

    // guarded by this; the fields below the state mean something in EXACT and CONTENDED_EXACT only
    private State state = State.UNKNOWN;
    private long session;
    private long czxid;
    private int next;
    private final Set<String> children = new HashSet<>();

    /** Whether an acquire on {@code session} should try the inferring transaction. */
    public synchronized boolean usable(long session) {
        return state == State.EXACT && session != 0 && this.session == session;
    }

    private boolean exact() {
        return state == State.EXACT || state == State.CONTENDED_EXACT;
    }

    /**
     * A plain create by {@code session} got number {@code sequence}. The view is not extended
     * (the reply tells nothing of the directory's incarnation; the listing behind it refreshes
     * the view), but if the number is the one expected next, an inference would have held, so
     * the next acquire tries it again. This keeps a lock that other sessions use in turns on
     * the plain path, whose listing is sent right behind the create, instead of a transaction
     * followed by a listing.
     */
    synchronized void plainCreate(long session, int sequence) {
        if (state == State.CONTENDED_EXACT && session != 0 && this.session == session && sequence == next) {
            state = State.EXACT;
        }
    }

    /** The reply of a plain create by {@code session}, on the event thread. */
    public void plainCreate(long session, ZkPort.Reply reply) {
        if (reply.ok() && reply.path() != null) {
            LockNode.parse(NodePaths.name(reply.path())).ifPresent(node -> plainCreate(session, (int) node.sequence()));
        }
    }

    /** The reply of a listing by {@code session}, on the event thread. */
    public void listed(long session, ZkPort.Reply reply) {
        if (reply.ok()) {
            listed(session, reply.stat(), reply.children());
        }
    }

    /**
     * The reply of an inferring transaction by {@code session} (setData on the directory, then
     * the create), on the event thread, in the order of the replies.
     *
     * @return the directory's children as of the create, our node included, or null if the
     *         view cannot vouch for them
     */
    public List<String> transacted(long session, ZkPort.Reply reply) {
        if (!reply.ok()) {
            if (reply.rc() == KeeperException.Code.NOAUTH || reply.rc() == KeeperException.Code.BADARGUMENTS
                    || reply.rc() == KeeperException.Code.UNIMPLEMENTED) {
                refuse();                      // this directory will never take the transaction
            } else {
                invalidate();                  // nothing applied, or we do not know what was
            }
            return null;
        }
        Stat directory = ((OpResult.SetDataResult) reply.results().get(0)).getStat();
        String name = NodePaths.name(((OpResult.CreateResult) reply.results().get(1)).getPath());
        return LockNode.parse(name).map(node -> created(session, directory, name, (int) node.sequence())).orElse(null);
    }

    /** A listing made by {@code session}, with the directory's Stat from the same reply. */
    public synchronized void listed(long session, Stat stat, List<String> names) {
        if (state == State.REFUSED) {
            return;
        }
        if (stat == null || session == 0 || stat.getCversion() < 0 || stat.getCversion() >= MAX_SEQUENCE) {
            invalidate();
            return;
        }
        this.session = session;
        this.czxid = stat.getCzxid();
        this.next = (stat.getCversion() + stat.getNumChildren()) / 2;
        children.clear();
        children.addAll(names);
        state = state == State.CONTENDED || state == State.CONTENDED_EXACT ? State.CONTENDED_EXACT : State.EXACT;
    }

    /**
     * The reply of an inferring transaction that created {@code name} with number
     * {@code sequence}; {@code directory} is the directory's Stat just before the create.
     *
     * @return the directory's children as of the create, our node included, or null if the
     *         view cannot vouch for them
     */
    synchronized List<String> created(long session, Stat directory, String name, int sequence) {
        boolean proven = exact() && session != 0 && this.session == session
                && directory.getCzxid() == czxid && sequence == next
                && (directory.getCversion() + directory.getNumChildren()) / 2 == sequence
                && directory.getNumChildren() == children.size();
        if (!proven || sequence + 1 >= MAX_SEQUENCE) {
            if (state != State.REFUSED) {
                state = State.CONTENDED;      // the next listing makes it exact again
            }
            return null;
        }
        children.add(name);
        next = sequence + 1;
        return new ArrayList<>(children);
    }

    /** The child {@code name} is confirmed gone. */
    public synchronized void deleted(String name) {
        children.remove(name);
    }

    /** A transaction failed in a way that says nothing of the children. */
    public synchronized void invalidate() {
        if (state == State.EXACT) {
            state = State.UNKNOWN;
        } else if (state == State.CONTENDED_EXACT) {
            state = State.CONTENDED;
        }
    }

    /** The server refused the inferring transaction itself (e.g. no write permission on the directory). */
    synchronized void refuse() {
        state = State.REFUSED;
    }
}
