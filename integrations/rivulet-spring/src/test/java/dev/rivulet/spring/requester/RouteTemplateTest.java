package dev.rivulet.spring.requester;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class RouteTemplateTest {

    @Test
    void placeholdersAreFilledInOrder() {
        assertThat(RouteTemplate.expand("orders.{id}.lines.{line}", 42, "a")).isEqualTo("orders.42.lines.a");
        assertThat(RouteTemplate.expand("plain")).isEqualTo("plain");
    }

    @Test
    void placeholdersAndVariablesMustMatchInNumber() {
        assertThatThrownBy(() -> RouteTemplate.expand("a.{x}")).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteTemplate.expand("a", 1)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> RouteTemplate.expand("a.{x", 1)).isInstanceOf(IllegalArgumentException.class);
    }
}
