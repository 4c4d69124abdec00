package dev.rivulet.core.spi;

/** Whether a provider can run here and, when not, why (library missing, no device, wrong OS). */
public record Availability(boolean available, String reason) {

    public static Availability yes() {
        return new Availability(true, "available");
    }

    public static Availability no(String reason) {
        return new Availability(false, reason);
    }
}
