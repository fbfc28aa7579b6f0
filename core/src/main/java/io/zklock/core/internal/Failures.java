package io.zklock.core.internal;

import java.util.function.Supplier;

import io.zklock.core.LockException;
import io.zklock.core.internal.zk.CuratorPort;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.imps.CuratorFrameworkState;
import org.apache.zookeeper.KeeperException;

/**
 * The one home of how a ZooKeeper refusal reads in a {@link LockException}'s message: what
 * failed, then the cause in words (not authorized on a path, authentication refused), so that
 * the message alone tells an operator what to fix and the cause chain is for the stack trace.
 */
public final class Failures {
    private Failures() {
    }

    /**
     * {@return the failure of {@code what}, refused by the server with {@code rc} on {@code path}}
     *
     * @param what the call or stage that failed, e.g. "create under /locks/a"
     * @param rc the server's result code
     * @param path the node the call named, or null
     */
    public static LockException of(String what, KeeperException.Code rc, String path) {
        return new LockException(what + " failed: " + cause(rc, path), KeeperException.create(rc, path));
    }

    /**
     * {@return the failure of {@code what}, caused by {@code cause}} A {@link KeeperException}
     * anywhere in the cause's chain is named as {@link #cause} names it.
     *
     * @param what the call or stage that failed
     * @param cause why
     */
    public static LockException of(String what, Throwable cause) {
        for (Throwable t = cause; t != null; t = t.getCause()) {
            if (t instanceof KeeperException k) {
                return new LockException(what + " failed: " + cause(k.code(), k.getPath()), cause);
            }
        }
        return new LockException(what + " failed: " + cause, cause);
    }

    /**
     * The cause of a refusal in words, naming the path.
     *
     * @param rc the server's result code
     * @param path the node the call named, or null
     * @return e.g. "not authorized (NoAuth) on /locks/a: ..."
     */
    public static String cause(KeeperException.Code rc, String path) {
        String on = path == null ? "" : " on " + path;
        return switch (rc) {
            case NOAUTH -> "not authorized (NoAuth)" + on + ": the client's identity lacks the permission the node's ACL requires";
            case AUTHFAILED -> "authentication failed (AuthFailed)" + on
                    + ": the server refused the client's credentials, and this session can make no more calls";
            case INVALIDACL -> "invalid ACL (InvalidACL)" + on + ": the client's ACLProvider gave an ACL the server refuses";
            default -> KeeperException.create(rc, path).getMessage();
        };
    }

    /** {@return whether {@code rc} is a refusal of the client's identity: retrying cannot help} */
    public static boolean isAuthorization(KeeperException.Code rc) {
        return rc == KeeperException.Code.NOAUTH || rc == KeeperException.Code.AUTHFAILED;
    }

    /**
     * Refuses a request on a client that cannot serve it: a closed client the same way every
     * recipe reports it while waiting ({@link LockException}), one never started as misuse.
     */
    public static void checkStarted(CuratorFramework client, String what) {
        checkStarted(client, () -> what);
    }

    /** {@link #checkStarted(CuratorFramework, String)}, naming the request only if it is refused (no string per request). */
    public static void checkStarted(CuratorFramework client, Supplier<String> what) {
        CuratorFrameworkState state = client.getState();
        if (state == CuratorFrameworkState.STOPPED) {
            throw LockContext.clientClosed(what.get());
        }
        if (CuratorPort.authFailed(client)) {
            throw of(what.get(), KeeperException.Code.AUTHFAILED, null);
        }
        if (state != CuratorFrameworkState.STARTED) {
            throw new IllegalStateException("the CuratorFramework client of " + what.get() + " is " + state
                    + "; start it before acquiring");
        }
    }
}
