package dev.rivulet.gpu.host;

import dev.rivulet.gpu.CopyDirection;

/**
 * Runs on the stand-in's copy thread before each copy: to slow copies down (a slower device) or to fail one (a
 * device error in chunk k). Throwing {@link dev.rivulet.gpu.DeviceMemoryException} fails that copy, as an
 * asynchronous CUDA error fails the copy its event covers: the event reports it when queried.
 */
@FunctionalInterface
public interface CopyHook {

    CopyHook NONE = (direction, bytes) -> { };

    void beforeCopy(CopyDirection direction, long bytes);
}
