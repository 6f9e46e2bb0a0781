/**
 * The admission registry between tests: every test starts with no account remembered. An account
 * whose runs ended is remembered until its tickets and its Retry-After pause hold nothing back,
 * on a timer (admission.ts); a test's pause of days would keep jest's process alive that long,
 * and a later test of the account (on another clock, whose times mean nothing to the admission)
 * would wait for it.
 */
import type {
	AccountAdmission,
	accountAdmissions,
} from '../../nodes/VoiceAssistant/shared/request/admission';

/** Nobody's seat: leaving with it changes nothing but ends the admission's wait to be forgotten. */
const NOBODY = { limit: undefined, held: { rateMs: 0, pauseMs: 0 } };

/**
 * Forgets every account of `registry` (the engine's, or a fresh copy's in a model): out of the
 * registry, an admission keeps nothing after its runs (`lingerUntilQuiet`), and its timer ends.
 * Runs still in it keep it until they end.
 */
export function forgetAccounts(registry: typeof accountAdmissions): void {
	const admissions = registry as Map<string, AccountAdmission>;
	for (const [account, admission] of [...admissions]) {
		admissions.delete(account);
		admission.leave(NOBODY);
	}
}
