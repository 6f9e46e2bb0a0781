import { Container } from '@n8n/di';
import { SSHClientsManager } from 'n8n-core/dist/execution-engine/ssh-clients-manager';

// n8n-core starts an SSH-client cleanup interval the first time a node runs; n8n stops it at
// shutdown, a test process has to do the same or jest never exits.
afterAll(() => {
	if (Container.has(SSHClientsManager)) Container.get(SSHClientsManager).onShutdown();
});
