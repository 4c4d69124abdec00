package dev.rivulet.spring.boot.autoconfigure;

import dev.rivulet.core.RivuletServer;

/**
 * Changes the {@link RivuletServer} builder the auto-configuration provides (and that serves the
 * {@code @MessageMapping} controllers): a connection hook, for instance. Every bean of this type is applied, in
 * {@link org.springframework.core.Ordered} order.
 */
@FunctionalInterface
public interface RivuletServerCustomizer {

    RivuletServer customize(RivuletServer server);
}
