/**
 * A granted lease: {@code ZkLease} (one granted node of one session; its states and how a close
 * deletes its node), {@code LeaseListeners} (telling listeners once each, outside any lock,
 * failures logged) and {@code RevocationWatch} (the data watch of a lease that opted in to
 * revocation). Read {@code ZkLease}'s class comment first.
 */
package io.zklock.core.internal.lease;
