package dev.rivulet.gpu;

import dev.rivulet.core.error.TransportException;

/**
 * The peer sent something that is not a device message where one was expected (a header that does not parse, a
 * chunk of the wrong size). Receiving device messages on that endpoint ends.
 */
public class DeviceProtocolException extends TransportException {

    public DeviceProtocolException(String message) {
        super(message);
    }
}
