package dev.rivulet.samples.pipeline;

import reactor.core.publisher.Flux;

/** A stand-in for real sensors: {@code sensors} interleaved streams of raw readings, each numbered from 0. */
public final class SensorFrames {

    private SensorFrames() {
    }

    /** {@code perSensor} frames from each of {@code sensors} sensors, round robin, generated on demand. */
    public static Flux<Frame> generate(int sensors, long perSensor) {
        return Flux.range(0, Math.toIntExact(sensors * perSensor))
                .map(i -> {
                    int sensor = i % sensors;
                    long seq = i / sensors;
                    // raw 12-bit ADC counts: about 22 °C once calibrated, with a slow wave per sensor
                    double raw = 992 + 48 * Math.sin(seq / 50.0 + sensor);
                    return new Frame(sensor, seq, System.nanoTime() / 1_000, raw);
                });
    }
}
