/** Side-by-side benchmarks against Curator's recipes; not yet implemented. */
package io.zklock.benchmarks;
