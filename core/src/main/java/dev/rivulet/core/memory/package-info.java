/**
 * Memory a transport may touch: {@link dev.rivulet.core.memory.MemoryDomain}s that register native segments as
 * {@link dev.rivulet.core.memory.MemoryRegion}s, pooled {@link dev.rivulet.core.memory.Buffer}s for messages, and
 * the {@link dev.rivulet.core.memory.Grant}s and {@link dev.rivulet.core.memory.RemoteMemory} through which a peer
 * reaches a window of them.
 */
@NullMarked
package dev.rivulet.core.memory;

import org.jspecify.annotations.NullMarked;
