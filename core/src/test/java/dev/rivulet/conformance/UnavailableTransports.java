package dev.rivulet.conformance;

import dev.rivulet.core.error.TransportUnavailableException;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import org.junit.jupiter.api.extension.TestExecutionExceptionHandler;
import org.opentest4j.TestAbortedException;

/**
 * Turns a {@link TransportUnavailableException} thrown by a test or its set-up into a skip with the reason, unless
 * the transport it names is required ({@link Requirements}). Registered for every test of every module through
 * JUnit's extension auto-detection (the parent pom enables it; this test-jar lists the extension as a service), so
 * tests that simply open a transport need no assumption of their own.
 */
public final class UnavailableTransports implements TestExecutionExceptionHandler,
        LifecycleMethodExecutionExceptionHandler {

    @Override
    public void handleTestExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        throw translate(t);
    }

    @Override
    public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        throw translate(t);
    }

    @Override
    public void handleBeforeEachMethodExecutionException(ExtensionContext context, Throwable t) throws Throwable {
        throw translate(t);
    }

    private static Throwable translate(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof TransportUnavailableException u) {
                String provider = Requirements.providerNamedIn(u.getMessage());
                if (provider != null && Requirements.isRequired(provider)) {
                    return t;
                }
                return new TestAbortedException("transport unavailable here: " + u.getMessage(), t);
            }
        }
        return t;
    }
}
