/**
 * Command-line benchmarks of the device paths: staged transfers against the device's own copy rate and the
 * transport's host-to-host rate, and host-device copies alone.
 */
@NullMarked
package dev.rivulet.gpu.bench;

import org.jspecify.annotations.NullMarked;
