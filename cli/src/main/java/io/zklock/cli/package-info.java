/** The {@code zklock} command (demo, status, revoke); not yet implemented. */
package io.zklock.cli;
