package dev.rivulet.gpu;

/** Which way a copy between host and device memory goes (the {@code direction} tag of the copy meters). */
public enum CopyDirection {
    /** Device memory to host memory ({@code cudaMemcpyDeviceToHost}). */
    TO_HOST("to_host"),
    /** Host memory to device memory ({@code cudaMemcpyHostToDevice}). */
    TO_DEVICE("to_device");

    private final String tag;

    CopyDirection(String tag) {
        this.tag = tag;
    }

    /** The meter tag value. */
    public String tag() {
        return tag;
    }
}
