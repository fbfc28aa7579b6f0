/**
 * What the conformance tests stand on; no test of a recipe lives here.
 *
 * <ul>
 * <li>The one list of recipes: {@link io.zklock.conformance.harness.Recipe#all()} (mutex,
 *     semaphore, read lock, write lock, a multi-lock over those four, and the leader election
 *     driven as a lock), each with what it
 *     promises (exclusive, bounded or shared; re-entrant or not), its rival and, for the
 *     multi-lock, its components. The properties, the fault schedules and the soak take their
 *     recipes from there (a property may take a variant, such as a semaphore of 2).</li>
 * <li>Servers and clients: {@link io.zklock.conformance.harness.SharedServer} (one embedded
 *     server for the properties), {@link io.zklock.conformance.harness.ServerFaults} (a server
 *     of their own for the named fault tests), {@link io.zklock.testing.FaultProxy}
 *     (a loopback proxy per client: freeze, deafen, cut, drop one reply, act before a request).</li>
 * <li>Judges: {@link io.zklock.conformance.harness.FencedReadWriteResource} (and the core test
 *     jar's {@code FencedResource}), {@link io.zklock.conformance.harness.FaultJudge}, which
 *     decides what breaks a promise in a schedule of the alphabet of
 *     {@link io.zklock.conformance.harness.FaultSchedule} that
 *     {@link io.zklock.conformance.harness.FaultScheduleRunner} runs, and
 *     {@link io.zklock.conformance.harness.ValidityReadings}, which judges each
 *     {@code validFor()} reading in a schedule against the server's own expiry of the session
 *     (each client's validity clock a {@link io.zklock.conformance.harness.SkewableClock}, which
 *     the {@code CLOCK_SKEW} fault runs slow or fast).</li>
 * <li>Support: {@link io.zklock.conformance.harness.ConformanceSupport}, the base of every
 *     property class (fresh path per try, clients closed after it, the leak check), and
 *     {@link io.zklock.conformance.harness.PropertyTry}, what of it the promise groups (the
 *     interfaces of {@code properties}) may use.</li>
 * </ul>
 *
 * <p>Where a test goes:
 * <ul>
 * <li>a property a recipe keeps: {@code io.zklock.conformance.properties};</li>
 * <li>a fault (a new kind, or a named case of one): {@code io.zklock.conformance.faults};</li>
 * <li>another library's known bug: {@code io.zklock.conformance.otherlibraries};</li>
 * <li>a server version: {@code io.zklock.conformance.servers};</li>
 * <li>a test of the harness itself (that a judge can fail, that the proxy does what it says):
 *     here, next to what it tests.</li>
 * </ul>
 * A new recipe is one more entry in {@link io.zklock.conformance.harness.Recipe#all()} and one
 * {@code …ConformanceTest} in {@code properties} that implements the promise groups it keeps; a new fault kind is one more
 * {@link io.zklock.conformance.harness.FaultSchedule.Fault} that the runner knows how to inject.
 * Every test class runs in {@code mvn -B verify} whatever its name (the parent POM includes every
 * class); only the soak is excluded, by name.
 */
package io.zklock.conformance.harness;
