package dev.rivulet.core.spi;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.rivulet.core.error.InvalidRequestException;
import java.net.URI;
import org.junit.jupiter.api.Test;

class AddressUriTest {

    @Test
    void readsAnAddressOfAnyShapeAsAUri() {
        URI uri = AddressUri.parse("local://orders");

        assertThat(uri.getScheme()).isEqualTo("local");
        assertThat(uri.getAuthority()).isEqualTo("orders");
    }

    @Test
    void refusesANullAddress() {
        assertThatThrownBy(() -> AddressUri.parse(null))
                .isInstanceOf(InvalidRequestException.class).hasMessage("address is null");
    }

    @Test
    void refusesTextThatIsNotAUri() {
        assertThatThrownBy(() -> AddressUri.parse("local://a b"))
                .isInstanceOf(InvalidRequestException.class).hasMessage("not a URI: local://a b");
    }
}
