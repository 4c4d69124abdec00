/**
 * Spring Boot auto-configuration for Rivulet: {@code rivulet.*} properties, the application's transport resources
 * (closed after its servers), {@code RivuletClient} and {@code RivuletServer} builders with their customizers, a
 * server answering with the application's {@code @MessageMapping} methods, health indicators, meters and
 * observations.
 */
@NullMarked
package dev.rivulet.spring.boot.autoconfigure;

import org.jspecify.annotations.NullMarked;
