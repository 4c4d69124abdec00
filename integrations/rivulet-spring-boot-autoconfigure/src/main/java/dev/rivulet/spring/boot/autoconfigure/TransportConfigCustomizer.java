package dev.rivulet.spring.boot.autoconfigure;

import dev.rivulet.core.TransportConfig;

/**
 * Changes the configuration the application's transport resources open every transport with, after the
 * {@code rivulet.transport.*} properties and the meter registry are applied: for what has no property (idle
 * strategy, security and liveness settings, an operation observer). Every bean of this type is applied, in
 * {@link org.springframework.core.Ordered} order.
 */
@FunctionalInterface
public interface TransportConfigCustomizer {

    TransportConfig customize(TransportConfig config);
}
