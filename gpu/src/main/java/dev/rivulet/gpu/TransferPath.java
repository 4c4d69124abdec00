package dev.rivulet.gpu;

/** How a device transfer reached the transport (the {@code path} tag of the transfer meters). */
public enum TransferPath {
    /**
     * Through pinned, registered host staging buffers: device to staging on a copy stream, staging to the
     * transport, and the reverse on the other side. Works over every transport.
     */
    STAGED("staged"),
    /**
     * Device memory registered with the provider ({@code FI_HMEM}) and handed to it as it is (GPUDirect RDMA): no
     * staging copy. Only puts and gets, on libfabric providers that report {@code FI_HMEM}.
     */
    DIRECT("direct"),
    /**
     * Device memory of another process of the same host mapped into this one (CUDA IPC): a put or get is one
     * device-to-device copy, with no host memory in between. Only puts and gets into {@code DeviceWindow}s.
     */
    IPC("ipc");

    private final String tag;

    TransferPath(String tag) {
        this.tag = tag;
    }

    public String tag() {
        return tag;
    }
}
