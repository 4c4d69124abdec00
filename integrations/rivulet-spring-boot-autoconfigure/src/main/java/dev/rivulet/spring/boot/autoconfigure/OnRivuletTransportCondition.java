package dev.rivulet.spring.boot.autoconfigure;

import java.util.Objects;

import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import dev.rivulet.core.Transports;

/** {@link ConditionalOnRivuletTransport}: the provider's presence and availability, with its reason. */
class OnRivuletTransportCondition extends SpringBootCondition {

    @Override
    public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
        var attributes = Objects.requireNonNull(
                metadata.getAnnotationAttributes(ConditionalOnRivuletTransport.class.getName()));
        String name = (String) attributes.get("value");
        ConditionMessage.Builder message = ConditionMessage.forCondition(ConditionalOnRivuletTransport.class,
                "(" + name + ")");
        var provider = Transports.provider(name);
        if (provider.isEmpty()) {
            return ConditionOutcome.noMatch(message.because("no provider of it is on the class path"));
        }
        var availability = provider.get().availability();
        return availability.available() ? ConditionOutcome.match(message.because("it is available"))
                : ConditionOutcome.noMatch(message.because("it is unavailable: " + availability.reason()));
    }
}
