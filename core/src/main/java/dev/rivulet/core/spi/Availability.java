package dev.rivulet.core.spi;

import java.util.Objects;

/**
 * Whether a provider (or a native library it needs) can run here and, when not, why: library missing, no device,
 * kernel feature disabled, wrong OS. Backends probe once and return one of these; the reason is a sentence a user can
 * act on.
 *
 * @param available whether it can be used
 * @param reason    why not, or what was found when it can
 */
public record Availability(boolean available, String reason) {

    public Availability {
        Objects.requireNonNull(reason, "reason");
    }

    public static Availability yes() {
        return new Availability(true, "available");
    }

    public static Availability no(String reason) {
        return new Availability(false, reason);
    }
}
