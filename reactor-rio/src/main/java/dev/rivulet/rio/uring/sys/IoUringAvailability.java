package dev.rivulet.rio.uring.sys;

import java.util.Objects;

/**
 * Whether io_uring can be used in this process, and if not, why (for the transport's provider to report).
 *
 * @param available whether a ring could be created
 * @param reason    empty when available, else a sentence a user can act on
 */
public record IoUringAvailability(boolean available, String reason) {

    public IoUringAvailability {
        Objects.requireNonNull(reason, "reason");
    }

    static IoUringAvailability yes() {
        return new IoUringAvailability(true, "");
    }

    static IoUringAvailability no(String reason) {
        return new IoUringAvailability(false, reason);
    }
}
