package dev.rivulet.core.spi;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a package or type of the transport SPI that is exported for third-party transports but may still change
 * between minor releases: signatures can gain or lose parameters as the wire kit settles, and such a change is named
 * in the release notes instead of waiting for a major version. The application API (what a user of
 * {@code Endpoint}, {@code Transport} and {@code RivuletClient} calls) carries no such mark and keeps its
 * compatibility promise. See {@code docs/writing-a-transport.md}.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.PACKAGE, ElementType.TYPE, ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface Incubating {
}
