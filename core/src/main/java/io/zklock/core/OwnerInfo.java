package io.zklock.core;

import java.net.InetAddress;
import java.time.Instant;

/**
 * Who asked for a node: stored in the node's data (as short UTF-8 lines) so that
 * {@code zklock status} can show who holds and who waits. Data other clients wrote may name no
 * owner: then the host and thread read {@code "?"}, the pid {@code -1} and the time
 * {@link Instant#EPOCH}.
 *
 * @param host host name of the requesting process
 * @param pid its process id
 * @param thread name of the requesting thread
 * @param requestedAt when the request was made
 */
public record OwnerInfo(String host, long pid, String thread, Instant requestedAt) {

    private static final String HOST = resolveHost();
    private static final int MAX_THREAD_NAME = 100;

    /** {@return the current process and thread, now} */
    @SuppressWarnings("deprecation")           // Thread.threadId() is JDK 19+; getId() is the same number
    public static OwnerInfo current() {
        String name = Thread.currentThread().getName();
        if (name.isEmpty()) {
            name = "thread-" + Thread.currentThread().getId();
        }
        if (name.length() > MAX_THREAD_NAME) {
            name = name.substring(0, MAX_THREAD_NAME);
        }
        return new OwnerInfo(HOST, ProcessHandle.current().pid(), name, Instant.now());
    }

    @Override
    public String toString() {
        return thread + "@" + host + "[pid " + pid + "] since " + requestedAt;
    }

    private static String resolveHost() {
        try {
            return InetAddress.getLocalHost().getHostName();
        } catch (Exception e) {
            return "unknown-host";
        }
    }
}
