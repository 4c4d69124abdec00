/**
 * The staged path of one endpoint: staging slots of registered host memory, a copy stream per direction, and the
 * outbound and inbound pipelines that overlap device copies with network transfers, driven from a polling loop.
 */
@NullMarked
package dev.rivulet.gpu.staging;

import org.jspecify.annotations.NullMarked;
