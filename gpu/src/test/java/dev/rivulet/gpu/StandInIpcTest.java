package dev.rivulet.gpu;

import dev.rivulet.gpu.host.HostMemoryStandIn;

/** {@link IpcContract} with the stand-in's shared files: runs everywhere. */
class StandInIpcTest extends IpcContract {

    @Override
    DeviceMemory newMemory() {
        return HostMemoryStandIn.shareable();
    }

    @Override
    String peerKind() {
        return "standin";
    }
}
