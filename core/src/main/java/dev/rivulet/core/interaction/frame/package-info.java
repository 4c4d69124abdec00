/**
 * The interaction protocol's frames on the wire: their layout ({@link dev.rivulet.core.interaction.frame.Frames}),
 * kinds ({@link dev.rivulet.core.interaction.frame.FrameType}) and error codes. Internal to Rivulet.
 */
@NullMarked
package dev.rivulet.core.interaction.frame;

import org.jspecify.annotations.NullMarked;
