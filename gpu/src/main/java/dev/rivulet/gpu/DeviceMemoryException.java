package dev.rivulet.gpu;

import dev.rivulet.core.error.ProviderException;
import org.jspecify.annotations.Nullable;

/**
 * A device memory type's call failed: an allocation, a copy, an event. Carries the memory type's own error name and
 * code ({@code cudaErrorMemoryAllocation}, 2) besides its text. A failed copy fails only the transfer it belonged to.
 */
public class DeviceMemoryException extends ProviderException {

    private final String errorName;

    /**
     * @param message   what was being done
     * @param kind      the memory type ({@link DeviceMemory#kind()}), reported as the provider
     * @param code      the memory type's error code
     * @param errorName the memory type's name of that code
     * @param text      its description
     */
    public DeviceMemoryException(String message, String kind, int code, String errorName, @Nullable String text) {
        super(message, kind, code, errorName + (text == null || text.isEmpty() ? "" : " (" + text + ")"), null);
        this.errorName = errorName;
    }

    /** The memory type's name of the error, e.g. {@code cudaErrorInvalidValue}. */
    public String errorName() {
        return errorName;
    }
}
