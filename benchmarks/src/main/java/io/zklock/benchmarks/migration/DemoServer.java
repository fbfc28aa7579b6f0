package io.zklock.benchmarks.migration;

import org.apache.curator.test.TestingServer;

/** A ZooKeeper server for trying the migration on one machine. Argument: the port (2181 if none). */
public final class DemoServer {
    private DemoServer() {
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 2181;
        try (TestingServer server = new TestingServer(port, true)) {
            System.out.println("ZooKeeper on " + server.getConnectString() + "; Ctrl-C stops it");
            Thread.currentThread().join();
        }
    }
}
