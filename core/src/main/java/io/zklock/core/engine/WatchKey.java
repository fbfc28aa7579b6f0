package io.zklock.core.engine;

import org.apache.zookeeper.Watcher.WatcherType;

/** A server-side watch of one session: a path as the server knows it (namespace included) and what is watched on it. */
record WatchKey(String path, WatcherType type) {
    static WatchKey data(String path) {
        return new WatchKey(path, WatcherType.Data);
    }

    static WatchKey children(String path) {
        return new WatchKey(path, WatcherType.Children);
    }
}
