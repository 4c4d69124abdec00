package dev.rivulet.spring.boot.autoconfigure;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import org.springframework.context.annotation.Conditional;

/**
 * Matches when the named transport ({@code local}, {@code io_uring}, {@code libfabric}) is on the class path and can
 * run on this machine: for beans of an application that uses a transport where it has one. The conditions
 * evaluation report ({@code --debug}) gives the reason of a transport that does not match.
 */
@Target({ElementType.TYPE, ElementType.METHOD})
@Retention(RetentionPolicy.RUNTIME)
@Documented
@Conditional(OnRivuletTransportCondition.class)
public @interface ConditionalOnRivuletTransport {

    /** The transport's provider name. */
    String value();
}
