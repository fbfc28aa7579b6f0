/**
 * Side-by-side benchmark of zklock and Curator's {@code InterProcess*} recipes on one embedded
 * ZooKeeper server in one JVM run: latency, throughput, server requests and wake-ups per
 * operation, and at scale (scenarios 8-11) the queue, the herd, many held locks and many sessions;
 * and under faults ({@code --scenario faults}, {@code FaultMix}): the same seeded fault timeline
 * against both libraries, each client through its own fault proxy; and what a lock-delay costs
 * ({@code --scenario lockdelay}, {@code LockDelayCost}): zklock's mutex with the delay off and on.
 *
 * <p>Run {@link io.zklock.benchmarks.Benchmarks}; README gives the Maven command. Read its
 * class comment first: how rounds alternate between the libraries, what is timed and how
 * requests are counted. Around it: {@code Scenario} (a workload written once),
 * {@code Recipes} (one library's recipes behind one shape), {@code Run} (workers until a
 * deadline), {@code Samples} (latencies and their order statistics),
 * {@code ServerCounters} (the server's own count of requests and of the watches it holds),
 * {@code NotificationCounter} (the server's connection factory, counting and judging every
 * watch notification it sends), {@code HeldLocks} (scenario 10, whose client runs in a JVM
 * of its own so that its heap can be measured), {@code ClientCost} (the client threads' bytes,
 * waits and CPU per round), {@code BaselineRecipes} ({@code --baseline DIR}: an earlier
 * commit's zklock, loaded apart, in the second column instead of Curator) and
 * {@code ThreadSplit} (an uncontended cycle's CPU by thread, one library per JVM). The counts
 * per operation that the build pins are in the module's {@code OperationCostTest}.
 */
package io.zklock.benchmarks;
