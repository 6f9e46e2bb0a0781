import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';
import { accountAdmissions } from '../nodes/VoiceAssistant/shared/request/admission';
import { forgetAccounts } from './helpers/accounts';

// n8n-core starts an SSH-client cleanup interval the first time a node runs; n8n stops it at
// shutdown, a test process has to do the same or jest never exits.
afterAll(() => {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
});
// No test meets an account an earlier one left (its rate, its pause, on that test's clock).
afterEach(() => forgetAccounts(accountAdmissions));
