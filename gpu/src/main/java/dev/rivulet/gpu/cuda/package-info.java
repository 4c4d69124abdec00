/**
 * CUDA device memory through JCuda's runtime API: allocation, non-blocking copy streams whose events the polling
 * loop queries, and host memory pinned in place. Optional at run time: its availability says why not.
 */
@NullMarked
package dev.rivulet.gpu.cuda;

import org.jspecify.annotations.NullMarked;
