/**
 * The {@code zklock} command line: {@link io.zklock.cli.Zklock}, the entry point, and its
 * commands.
 *
 * <ul>
 *   <li>{@code status} ({@code StatusCommand}, printed by {@code StatusReport}): who holds and
 *       who waits at lock paths on a real ensemble, once or as they change. Read the Overview at
 *       the top of {@code StatusCommand} first: it states the watch loop.</li>
 *   <li>{@code revoke} ({@code RevokeCommand}): asks a holder to let go, or deletes its node.</li>
 *   <li>{@code demo} ({@code DemoCommand}): each recipe's {@code Story} ({@code MutexStory} and
 *       {@code FencingStory}, {@code SemaphoreStory}, {@code ReadWriteStory},
 *       {@code MultiLockStory}, {@code ElectionStory}) told by several sessions on a {@code Stage}, on an
 *       {@link io.zklock.cli.EmbeddedZooKeeper} or an ensemble; a {@code Timeline} of what each
 *       session did, drawn by {@code TimelineSvg}, and a {@code SummaryTable}.</li>
 *   <li>Shared by the commands: {@code ConnectOptions} (where the ensemble is, the one client),
 *       {@link io.zklock.cli.Durations} (durations as people write them).</li>
 * </ul>
 * This is the one module that writes to standard output; expected failures are one line on
 * standard error, never a stack trace.
 */
package io.zklock.cli;
