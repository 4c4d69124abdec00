/**
 * Device memory shared between processes of one host (CUDA IPC): a {@code DeviceBuffer} granted as a
 * {@link dev.rivulet.gpu.ipc.DeviceWindow}, mapped into the peer, where puts and gets are device-to-device copies;
 * rights and revocation kept by a control word the exporter grants over the connection, as a lease.
 */
@NullMarked
package dev.rivulet.gpu.ipc;

import org.jspecify.annotations.NullMarked;
