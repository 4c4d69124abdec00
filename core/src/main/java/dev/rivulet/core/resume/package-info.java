/**
 * Resumable sessions: a conversation of messages that outlives the connection it runs on. Each message carries its
 * position in the session; the receiver acknowledges what its application took; the sender keeps what is not yet
 * acknowledged, at most the receiver's window of messages, and when a connection breaks the client connects again,
 * both sides exchange the positions they reached, and the sender replays the tail the receiver lacks, so each message
 * is delivered exactly once and in order. A session that is not resumed within its timeout ends with
 * {@link dev.rivulet.core.error.SessionExpiredException}. Puts, gets and atomics on memory a side exposed to the
 * session ({@link dev.rivulet.core.resume.ResumableSession#expose}) are numbered and re-issued the same way, and the
 * target keeps each answer until the requester has it, so each is applied exactly once.
 *
 * <p>The layer works over any {@link dev.rivulet.core.Endpoint}'s messages, so every transport gets it unchanged:
 * {@link dev.rivulet.core.RivuletClient#connectResumable} and
 * {@link dev.rivulet.core.RivuletServer#handleResumable} use it, and {@link dev.rivulet.core.resume.ResumeConnector} /
 * {@link dev.rivulet.core.resume.ResumeAcceptor} put it over endpoints from any other source.
 */
@NullMarked
package dev.rivulet.core.resume;

import org.jspecify.annotations.NullMarked;
