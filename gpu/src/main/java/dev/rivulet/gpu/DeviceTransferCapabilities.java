package dev.rivulet.gpu;

/**
 * Which path each kind of device transfer takes on one endpoint, and why not the direct one.
 *
 * @param messagePath    the path of {@code send} and {@code receive}: always {@link TransferPath#STAGED}, since
 *                       Rivulet messages are pooled host buffers on both sides
 * @param rmaPath        the path of {@code put} and {@code get}
 * @param directReason   why the direct path is not used ({@code "available"} when it is)
 * @param chunkSize      bytes per staged chunk
 * @param stagingBuffers staging buffers per direction
 * @param ipcReason      whether puts and gets into device windows of a peer process ({@link TransferPath#IPC})
 *                       and grants of device buffers work here ({@code "available"}), or why not
 */
public record DeviceTransferCapabilities(TransferPath messagePath, TransferPath rmaPath, String directReason,
                                         int chunkSize, int stagingBuffers, String ipcReason) {

    /** Capabilities of transfers whose memory type cannot share buffers between processes. */
    public DeviceTransferCapabilities(TransferPath messagePath, TransferPath rmaPath, String directReason,
                                      int chunkSize, int stagingBuffers) {
        this(messagePath, rmaPath, directReason, chunkSize, stagingBuffers, "not shareable");
    }

    /** Whether device windows of a peer process of this host can be used ({@link TransferPath#IPC}). */
    public boolean ipcAvailable() {
        return "available".equals(ipcReason);
    }
}
