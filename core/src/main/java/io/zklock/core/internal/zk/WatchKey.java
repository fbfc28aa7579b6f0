package io.zklock.core.internal.zk;

import org.apache.zookeeper.Watcher.WatcherType;

/** A server-side watch of one session: a path as the server knows it (namespace included) and what is watched on it. */
public record WatchKey(String path, WatcherType type) {
    public static WatchKey data(String path) {
        return new WatchKey(path, WatcherType.Data);
    }

    public static WatchKey children(String path) {
        return new WatchKey(path, WatcherType.Children);
    }
}
