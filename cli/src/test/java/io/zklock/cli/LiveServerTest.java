package io.zklock.cli;

import java.time.Duration;

import io.zklock.core.LockAdmin;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/** The base of the end-to-end tests on a live server: one server per class, sessions closed after each test. */
abstract class LiveServerTest {
    static final Duration WAIT = Duration.ofSeconds(10);
    static LiveServer zk;

    @BeforeAll
    static void startServer() throws Exception {
        zk = new LiveServer();
    }

    @AfterEach
    void closeSessions() {
        zk.closeSessions();
    }

    @AfterAll
    static void stopServer() {
        zk.close();
    }

    /** Waits until {@code count} nodes queue at {@code path}. */
    static void awaitParticipants(String path, int count) throws InterruptedException {
        LockAdmin admin = zk.admin();
        LiveServer.await(count + " participants at " + path, WAIT, () -> admin.status(path).participants().size() == count);
    }
}
