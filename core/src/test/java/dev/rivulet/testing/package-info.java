/** What the project's own tests share: JUnit extensions that are not part of the conformance kit. */
@NullMarked
package dev.rivulet.testing;

import org.jspecify.annotations.NullMarked;
