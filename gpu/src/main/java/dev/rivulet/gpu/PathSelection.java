package dev.rivulet.gpu;

/** Which path {@link DeviceTransfers} may use for puts and gets ({@link DeviceTransferConfig#paths}). */
public enum PathSelection {
    /** Direct where the transport can register the device memory, staged otherwise. */
    AUTO,
    /** Always staged. */
    STAGED,
    /** Direct or nothing: opening fails with the reason where the direct path is unavailable. */
    DIRECT
}
