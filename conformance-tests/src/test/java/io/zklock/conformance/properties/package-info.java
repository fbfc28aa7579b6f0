/**
 * The properties the recipes keep, each stated once in a one-line javadoc and run on every
 * recipe whose promises it assumes, against a real ZooKeeper.
 *
 * <p>Read first {@link io.zklock.conformance.properties.LockPromises}. The properties are
 * grouped by the promise they assume, each group an interface of default property methods
 * that declares the factory it needs ({@code Recipe recipe()}) and stands on the harness's
 * {@link io.zklock.conformance.harness.PropertyTry}; no group extends another:
 * <ul>
 * <li>{@link io.zklock.conformance.properties.LockPromises}: every recipe (exclusion judged
 *     against the recipe's capacity and its rival, hygiene, a grant racing a timeout, re-queue
 *     after session expiry, reaped and re-created directories, close while cut off, inspection
 *     and revocation);</li>
 * <li>{@link io.zklock.conformance.properties.ReentrantPromises}: recipes that re-enter
 *     (all but the semaphore);</li>
 * <li>{@link io.zklock.conformance.properties.ExclusivePromises}: recipes with one holder
 *     at a time (mutex, write lock, multi-lock, leader election): fencing order, exact queue order, a holder
 *     fenced out after its session expired.</li>
 * </ul>
 * One concrete class per recipe of {@code Recipe.all()}, named {@code …ConformanceTest},
 * extends {@link io.zklock.conformance.harness.ConformanceSupport} and implements every group
 * whose promises its recipe keeps ({@code MutexConformanceTest}, {@code SemaphoreConformanceTest},
 * {@code ReadLockConformanceTest}, {@code WriteLockConformanceTest},
 * {@code MultiLockConformanceTest}, {@code LeaderElectionConformanceTest}). A class of named properties is a {@code …PropertiesTest}.
 * What only one recipe promises stays in that recipe's class:
 * {@code SemaphorePropertiesTest} (out-of-order releases, maxLeases disagreement),
 * {@code ReadWriteLockPropertiesTest} (readers with writers, downgrade, upgrade, the herd),
 * {@code MultiLockPropertiesTest} (deadlock-freedom, all or nothing, mixed kinds),
 * {@code LeaderElectionPropertiesTest} (one believed leader at any moment under faults, writes
 * in epoch order, someone leads again within a session timeout and a notification, nothing left
 * after close).
 *
 * <p>Cached leases: every recipe that caches runs its group again with caching on, one class
 * per recipe of {@code Recipe.allCached()} ({@code CachedMutexConformanceTest},
 * {@code CachedSemaphoreConformanceTest}, {@code CachedReadLockConformanceTest}). A property
 * that checks what is left after a close calls {@code releaseCaches()} first (a cached node stays
 * until its lock object closes: that is the feature); nothing else is relaxed for them. What only
 * caching promises a conflicting client (asked back without waiting for the idle period, FIFO
 * across processes, no starvation by local re-grants) is {@code CachedLeasePropertiesTest}.
 *
 * <p>Two classes hold what every recipe keeps against other clients, each on a server of its
 * own and over {@code Recipe.all()}: {@code SecurityPropertiesTest} (on a server with digest
 * authentication: the ACL of every node zklock creates, the integrations' included; another
 * identity refused at once with the cause; status for a read-only identity; AuthFailed sessions)
 * and {@code HostileDataPropertiesTest} (node data and child names written by another client).
 * Also over {@code Recipe.all()}: {@code GuardedWritePropertiesTest} (a transaction guarded by a
 * lease commits only while the lease holds). {@code PublicSurfacePropertiesTest} checks what a
 * user sees of the recipes' classes; {@code VirtualThreadPinningPropertiesTest} that waiting for
 * a mutex never pins a virtual thread's carrier (JDK 21 or later; {@code .ci/run} runs it on one).
 *
 * <p>Where a new property goes: into the group whose promises it assumes (a property that
 * needs a waiting request takes the recipe's rival, so that it holds for a shared recipe too);
 * a new promise is a new group, implemented by the conformance class of each recipe that keeps
 * it; into a recipe's own class only when no other recipe could keep it. A property is not written
 * twice and does not return early for a recipe it does not fit: it belongs to a narrower group.
 * Faults beyond a session expiry go to {@code io.zklock.conformance.faults}, other libraries'
 * bugs to {@code io.zklock.conformance.otherlibraries}, server versions to
 * {@code io.zklock.conformance.servers}.
 */
package io.zklock.conformance.properties;
