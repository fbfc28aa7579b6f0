/**
 * Side-by-side benchmark of zklock and Curator's {@code InterProcess*} recipes on one embedded
 * ZooKeeper server in one JVM run: latency, throughput and server requests per operation.
 *
 * <p>Run {@link io.zklock.benchmarks.Benchmarks}; README gives the Maven command. Read its
 * class comment first: how rounds alternate between the libraries, what is timed and how
 * requests are counted. Around it: {@code Scenario} (a workload written once),
 * {@code Recipes} (one library's recipes behind one shape), {@code Run} (workers until a
 * deadline), {@code Samples} (latencies and their order statistics) and
 * {@code PacketCounter} (the server's own count of requests).
 */
package io.zklock.benchmarks;
