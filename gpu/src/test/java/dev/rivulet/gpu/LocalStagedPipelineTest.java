package dev.rivulet.gpu;

/** The staged pipeline over the in-JVM {@code local} transport. */
class LocalStagedPipelineTest extends StagedPipelineContract {

    @Override
    TestTransport transport() {
        return TestTransport.LOCAL;
    }
}
