/**
 * Health of Rivulet in a Spring Boot application: one indicator per transport on the class path, and one for the
 * server of the application's {@code @MessageMapping} methods.
 */
@NullMarked
package dev.rivulet.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
