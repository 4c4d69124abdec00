/**
 * The credit protocol as one unit: the control word every message carries ({@link dev.rivulet.core.credit.ControlWord}),
 * the layout of coalesced frames ({@link dev.rivulet.core.credit.BatchFraming}), one connection's credit accounts in
 * both directions ({@link dev.rivulet.core.credit.CreditLedger}) and the check every arriving message passes
 * ({@link dev.rivulet.core.credit.CreditGate}). The engine keeps the ledger; a wire sees it only through its gate. See
 * {@code docs/credit-protocol.md} for the rules themselves.
 */
@NullMarked
package dev.rivulet.core.credit;

import org.jspecify.annotations.NullMarked;
