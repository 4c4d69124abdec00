/**
 * Host memory standing in as a device memory type where there is no GPU: the whole device pipeline runs through
 * it unchanged, with copy threads that behave like CUDA streams and a stricter rule on unpinned host memory.
 */
@NullMarked
package dev.rivulet.gpu.host;

import org.jspecify.annotations.NullMarked;
