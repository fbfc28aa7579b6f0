/**
 * The ZooKeeper door and the session. {@code ZkPort} is the one door: every call the engine
 * makes goes through it, each returning a future, so a test can script the order of replies
 * and events ({@code CuratorPort} is that door on a Curator client, the only class that calls
 * Curator). {@code SessionMonitor} is the one connection-state listener of a client, telling
 * {@code SessionListener}s of connection and session changes. {@code Watches} keeps the watch
 * bookkeeping, {@code DirectoryView} the session's knowledge of a lock directory for
 * sequence-gap inference (its Overview states the facts it rests on), {@code Backoff} every
 * retry delay and {@code Threads} the engine's own threads (and its one wait that rides out
 * interrupts).
 */
package io.zklock.core.internal.zk;
