/**
 * Faults: what the recipes keep while connections, sessions, replies, directories and servers
 * fail.
 *
 * <ul>
 * <li>{@link io.zklock.conformance.faults.ScheduledFaultsTest}: generated schedules over the
 *     whole fault alphabet, every recipe, on a single server and on a three-server ensemble
 *     (a fixed number per recipe in {@code mvn -B verify});</li>
 * <li>{@link io.zklock.conformance.faults.FaultSoak}: the same judge for minutes, run only by
 *     {@code -Psoak} (the parent POM excludes it by name);</li>
 * <li>named cases: {@link io.zklock.conformance.faults.ClientFaultsTest} (reaped directory under
 *     a create, a lost session's nodes, a closed client, failures while handling a reply),
 *     {@link io.zklock.conformance.faults.RevocationFaultsTest} (revocation through cuts and lost
 *     replies), {@link io.zklock.conformance.faults.EnsembleFaultsTest} (leader loss and a
 *     server restart under contention), {@link io.zklock.conformance.faults.ListeningWaiterFaultsTest}
 *     (a waiter that listens through its client's tree watch, cut off, deafened or expired
 *     while the holder lets go; run on the recipes whose waiters listen).</li>
 * </ul>
 *
 * <p>Where a new fault goes: a new kind of fault is one more
 * {@code io.zklock.conformance.harness.FaultSchedule.Fault}, injected by
 * {@code FaultScheduleRunner}, so that every generated schedule and the soak draw it; a case
 * worth naming (a bug found, a promise a reader looks for) is a test here, parameterized over
 * {@code Recipe.all()}. A failure another library is known for goes to
 * {@code io.zklock.conformance.otherlibraries}.
 */
package io.zklock.conformance.faults;
