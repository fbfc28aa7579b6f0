package io.zklock.cli;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * A loopback TCP relay between one ZooKeeper client and the server, which can freeze: while
 * frozen it forwards no byte either way and new connections wait, as if the client's process
 * had stopped (a long GC pause). The server hears nothing and expires the session; the client
 * sees nothing until it thaws. That is the holder the fencing token exists for.
 */
final class FreezingProxy implements AutoCloseable {
    private final ServerSocket listener;
    private final InetSocketAddress target;
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final Object gate = new Object();
    private boolean frozen;

    private FreezingProxy(ServerSocket listener, InetSocketAddress target) {
        this.listener = listener;
        this.target = target;
    }

    /** Relays {@code 127.0.0.1:<new port>} to {@code host:port}. */
    static FreezingProxy start(String hostPort) throws IOException {
        int colon = hostPort.lastIndexOf(':');
        InetSocketAddress target = new InetSocketAddress(hostPort.substring(0, colon),
                Integer.parseInt(hostPort.substring(colon + 1)));
        FreezingProxy proxy = new FreezingProxy(new ServerSocket(0, 50, InetAddress.getLoopbackAddress()), target);
        daemon(proxy::acceptLoop, "zklock-proxy-accept");
        return proxy;
    }

    /** Where the frozen client connects. */
    String connectString() {
        return listener.getInetAddress().getHostAddress() + ":" + listener.getLocalPort();
    }

    void freeze() {
        synchronized (gate) {
            frozen = true;
        }
    }

    void thaw() {
        synchronized (gate) {
            frozen = false;
            gate.notifyAll();
        }
    }

    @Override
    public void close() {
        thaw();
        closeQuietly(listener);
        sockets.forEach(FreezingProxy::closeQuietly);
    }

    private void acceptLoop() {
        while (!listener.isClosed()) {
            try {
                Socket client = listener.accept();
                sockets.add(client);
                awaitThaw();
                Socket server = new Socket();
                sockets.add(server);
                server.connect(target, 5_000);
                daemon(() -> pump(client, server), "zklock-proxy-up");
                daemon(() -> pump(server, client), "zklock-proxy-down");
            } catch (IOException | InterruptedException e) {
                // the listener closed, or one connection failed: the client will retry
            }
        }
    }

    private void pump(Socket from, Socket to) {
        byte[] buffer = new byte[8192];
        try (InputStream in = from.getInputStream(); OutputStream out = to.getOutputStream()) {
            int n;
            while ((n = in.read(buffer)) >= 0) {
                awaitThaw();    // bytes read while frozen are held back, not lost
                out.write(buffer, 0, n);
                out.flush();
            }
        } catch (IOException | InterruptedException e) {
            // one side closed: close both below so the other side notices
        } finally {
            closeQuietly(from);
            closeQuietly(to);
        }
    }

    private void awaitThaw() throws InterruptedException {
        synchronized (gate) {
            while (frozen) {
                gate.wait();
            }
        }
    }

    private static void daemon(Runnable task, String name) {
        Thread t = new Thread(task, name);
        t.setDaemon(true);
        t.start();
    }

    private static void closeQuietly(java.io.Closeable c) {
        try {
            c.close();
        } catch (IOException ignored) {
            // nothing to do: it is closed either way
        }
    }
}
