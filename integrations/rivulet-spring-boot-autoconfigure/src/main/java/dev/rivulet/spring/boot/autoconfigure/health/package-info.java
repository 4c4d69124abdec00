/**
 * Health of Rivulet in a Spring Boot application: one indicator per kind of transport on the class path (available or
 * not, and the state of each of its transports the application opened), and one for the
 * server of the application's {@code @MessageMapping} methods.
 */
@NullMarked
package dev.rivulet.spring.boot.autoconfigure.health;

import org.jspecify.annotations.NullMarked;
