/**
 * Known failures of other lock libraries (etcd #11456 and #22082, CURATOR-604, -678 and
 * -315/-462), each a named test run against every recipe of {@code Recipe.all()}: zklock must
 * not fail the same way.
 *
 * <p>Where another library's known bug goes: a test method in
 * {@link io.zklock.conformance.otherlibraries.OtherLibrariesFaultsTest} named after the
 * library's issue ({@code curator604_...}), with a javadoc that says what went wrong there,
 * parameterized over {@code Recipe.all()}, and built from the harness's proxies and servers.
 */
package io.zklock.conformance.otherlibraries;
