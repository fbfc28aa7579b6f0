/**
 * Server compatibility: the conformance slice of
 * {@link io.zklock.conformance.servers.ServerMatrixTest} against real server processes
 * ({@link io.zklock.conformance.servers.ServerProcess}) of every supported ZooKeeper line, with
 * the client Curator brings. It runs under {@code -Pmatrix}, which fetches the servers' jars;
 * without the profile it reports itself skipped (it needs {@code zklock.matrix.versions}).
 *
 * <p>Where a new server version goes: one execution in the {@code matrix} profile of
 * {@code conformance-tests/pom.xml} (its jars, from its POM and its parent's) and its number in
 * {@code zklock.matrix.versions}; a check every version must pass goes into the slice here.
 */
package io.zklock.conformance.servers;
