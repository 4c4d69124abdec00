package dev.rivulet.rio.windows.sys;

import java.util.Objects;

/**
 * Whether Windows Registered I/O can be used in this process, and if not, why.
 *
 * @param available whether the RIO function table could be obtained
 * @param reason    empty when available, else a sentence a user can act on
 */
public record RioAvailability(boolean available, String reason) {

    public RioAvailability {
        Objects.requireNonNull(reason, "reason");
    }

    static RioAvailability yes() {
        return new RioAvailability(true, "");
    }

    static RioAvailability no(String reason) {
        return new RioAvailability(false, reason);
    }
}
