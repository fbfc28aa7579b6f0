/**
 * The documentation's own checks: README.md and the pages under docs/ are read as GitHub renders
 * them ({@link io.zklock.conformance.docs.MarkdownFile}); every link must lead to a file or a
 * heading that exists ({@link io.zklock.conformance.docs.DocsLinksTest}), and every Java example
 * must compile against this module's test class path, which holds every recipe and integration
 * ({@link io.zklock.conformance.docs.DocsExamplesCompileTest}).
 *
 * <p>Where a new check of the docs goes: here, reading the pages through {@code MarkdownFile}.
 * An example that needs a framework not yet on the class path brings it in as a test dependency
 * of this module, and its artifact joins {@code DocsExamplesCompileTest}'s required classes.
 */
package io.zklock.conformance.docs;
