package dev.rivulet.core.resume;

import dev.rivulet.conformance.ResumeConformance;

/** Resumable sessions over the in-JVM transport. */
class LocalResumeTest extends ResumeConformance {

    @Override
    protected String bindAddress(String name) {
        return "local://" + name;
    }
}
