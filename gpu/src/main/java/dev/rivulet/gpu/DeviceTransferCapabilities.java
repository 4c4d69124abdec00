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
 */
public record DeviceTransferCapabilities(TransferPath messagePath, TransferPath rmaPath, String directReason,
                                         int chunkSize, int stagingBuffers) {
}
