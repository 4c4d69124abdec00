package dev.rivulet.gpu;

import dev.rivulet.core.error.Retryable;
import dev.rivulet.core.error.TransportException;

/**
 * The sender gave a device message up part way (it was cancelled, or a copy of one of its chunks failed): the bytes
 * already received into the destination are incomplete. Retryable in the sense that the next message arrives
 * normally.
 */
public class TransferAbortedException extends TransportException implements Retryable {

    public TransferAbortedException(String message) {
        super(message);
    }
}
