/**
 * A granted lease and its views. {@code ZkLease} is one granted node of one session: its one
 * state value ({@code LeasePhase}), how a close deletes its node, its grant notice
 * ({@code GrantNotice}) and revocation opt-in ({@code RevocationOptIn}, {@code RevocationWatch},
 * the data watch of a lease that opted in). The views are leases over leases, on one base
 * ({@code LeaseView}): {@code HoldLease} (a re-entered hold), {@code PermitLease} (a semaphore
 * permit taken by a blocking call) and {@code MultiLeaseView} over a {@code MultiGrant} (a
 * multi-lock's grant), which is also the holder {@code MultiLockHolds} records so that a reentrant
 * lock refuses what its thread holds through a multi-lock. {@code LeaseListeners} tells listeners once each, outside any lock,
 * failures logged. Read {@code ZkLease}'s Overview first, then {@code LeaseView}'s, which
 * states the serialisation rule every lease and watch here follows.
 */
package io.zklock.core.internal.lease;
