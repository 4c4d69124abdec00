/**
 * The in-JVM transport ({@code local://name}): endpoints in one JVM that copy between registered segments with the
 * credits, queue depths and completion semantics of a hardware transport; its options are
 * {@link dev.rivulet.core.local.LocalOptions}. Also the smallest complete transport to read when writing one.
 */
@NullMarked
package dev.rivulet.core.local;

import org.jspecify.annotations.NullMarked;
