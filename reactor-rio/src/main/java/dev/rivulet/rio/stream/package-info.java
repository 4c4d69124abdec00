/**
 * Transport logic shared by the registered-buffer socket transports (io_uring on Linux, Registered I/O on Windows):
 * framing on a byte stream, the credit protocol's words, software RMA executed by the target's progress thread,
 * flush, and teardown. Only the system layer ({@link dev.rivulet.rio.stream.StreamChannel}) differs between them.
 *
 * <h2>Frames</h2>
 * Every frame is a 16-byte {@link dev.rivulet.rio.stream.FrameHeader} followed by {@code length} payload bytes:
 * <pre>
 *  0               8               12   13        16
 * +---------------+---------------+----+---------+------------------+
 * | tag (u64 LE)  | length (u32)  |kind| reserved|  payload ...     |
 * +---------------+---------------+----+---------+------------------+
 * </pre>
 * The tag is the credit protocol's control word for {@link dev.rivulet.rio.stream.FrameKind#MESSAGE} frames and the
 * request id for the RMA and flush frames. RMA requests start their payload with a
 * {@link dev.rivulet.rio.stream.RmaRequest}.
 */
@NullMarked
package dev.rivulet.rio.stream;

import org.jspecify.annotations.NullMarked;
