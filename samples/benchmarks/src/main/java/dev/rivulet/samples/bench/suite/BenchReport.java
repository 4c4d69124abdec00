package dev.rivulet.samples.bench.suite;

import dev.rivulet.samples.bench.Results;

/**
 * What one transport configuration's run produced, everything the charts and the doc section need.
 *
 * @param id        short name for files and markers: "tcp", "uring-default", "local"
 * @param name      short name for chart titles: "libfabric tcp", "io_uring, default idle strategy"
 * @param title     the section heading
 * @param about     one paragraph: what runs against what
 * @param results   every recorded run
 * @param table     the Markdown table and its notes, in the format of the CLI that measured it
 * @param command   the command the suite ran (relative to the repository root, without its output options)
 * @param reproduce the {@code bin/bench} command that repeats it
 * @param charts    which charts to draw
 */
public record BenchReport(String id, String name, String title, String about, Results results, String table,
                          String command, String reproduce, ChartPlan charts) {
}
