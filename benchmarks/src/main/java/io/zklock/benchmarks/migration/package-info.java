/**
 * Trying a rolling migration from Curator's lock recipes by hand (docs/migrating-from-curator.md,
 * "Trying it"): {@code CuratorReplica} and {@code ZklockReplica} contend on one path per recipe
 * and count overlaps; {@code DemoServer} is a ZooKeeper server to run them against. The page
 * shows the two replicas' source, and a test checks that it shows this source.
 */
package io.zklock.benchmarks.migration;
