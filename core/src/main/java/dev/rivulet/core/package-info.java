/**
 * The application API: {@link dev.rivulet.core.Transport}s made by {@link dev.rivulet.core.Transports} or
 * {@link dev.rivulet.core.RivuletClient} / {@link dev.rivulet.core.RivuletServer}, their
 * {@link dev.rivulet.core.Endpoint}s with messages, RMA and atomics as {@code Mono}s and {@code Flux}es, and the
 * configuration and capabilities that go with them.
 */
@NullMarked
package dev.rivulet.core;

import org.jspecify.annotations.NullMarked;
