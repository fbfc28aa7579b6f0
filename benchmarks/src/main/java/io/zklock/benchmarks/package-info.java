/**
 * Side-by-side benchmark of zklock and Curator's {@code InterProcess*} recipes on one embedded
 * ZooKeeper server in one JVM run: latency, throughput and server requests per operation.
 * Run {@link io.zklock.benchmarks.Benchmarks}; README gives the Maven command.
 */
package io.zklock.benchmarks;
