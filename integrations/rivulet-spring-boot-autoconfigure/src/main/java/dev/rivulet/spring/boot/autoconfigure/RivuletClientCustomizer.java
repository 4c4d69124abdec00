package dev.rivulet.spring.boot.autoconfigure;

import dev.rivulet.core.RivuletClient;

/**
 * Changes the {@link RivuletClient} builder the auto-configuration provides: connect timeout or hooks, for instance.
 * Every bean of this type is applied, in {@link org.springframework.core.Ordered} order.
 */
@FunctionalInterface
public interface RivuletClientCustomizer {

    RivuletClient customize(RivuletClient client);
}
