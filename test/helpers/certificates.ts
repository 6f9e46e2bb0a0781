/**
 * Server certificates that Node.js refuses, each for its own reason, made with the machine's
 * `openssl` in a temporary folder (removed again), for a TLS server on 127.0.0.1 (tlsServer in
 * socketFaults.ts). `code` is the code Node gives the refusal (the tls docs' X509 codes).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface RefusedCertificate {
	key: string;
	cert: string;
	code: string;
}

export type CertificateKind =
	| 'selfSigned'
	| 'clientAuthOnly'
	| 'pathLength'
	| 'leafOnly'
	| 'expired';

export function refusedCertificates(): Record<CertificateKind, RefusedCertificate> {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'va-certs-'));
	const read = (name: string) => fs.readFileSync(path.join(dir, name), 'utf8');
	const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
	const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
	const ip = 'subjectAltName=IP:127.0.0.1';
	/** A self-signed certificate with these extensions. */
	const selfSigned = (name: string, subject: string, ...extensions: string[]) =>
		openssl(
			...['req', '-x509', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.pem`],
			...['-subj', `/CN=${subject}`, '-days', '36500'],
			...extensions.flatMap((extension) => ['-addext', extension]),
		);
	/** A certificate signed by `by` (by itself when `by` is `name`), valid for `days`. */
	const signed = (name: string, by: string, extensions: string[], days = '36500') => {
		openssl(
			'req',
			...newKey,
			'-keyout',
			`${name}.key`,
			'-out',
			`${name}.csr`,
			'-subj',
			'/CN=127.0.0.1',
		);
		fs.writeFileSync(path.join(dir, `${name}.ext`), extensions.join('\n'));
		const issuer =
			by === name ? ['-signkey', `${name}.key`] : ['-CA', `${by}.pem`, '-CAkey', `${by}.key`];
		openssl(
			...['x509', '-req', '-in', `${name}.csr`, '-out', `${name}.pem`, '-days', days],
			...[...issuer, '-set_serial', '1', '-extfile', `${name}.ext`],
		);
	};
	try {
		selfSigned('self', '127.0.0.1', ip);
		selfSigned('purpose', '127.0.0.1', ip, 'extendedKeyUsage=clientAuth');
		// A root that allows no intermediate, an intermediate under it, the server's under that.
		selfSigned('root', 'Test Root', 'basicConstraints=critical,CA:TRUE,pathlen:0');
		signed('int', 'root', ['basicConstraints=critical,CA:TRUE', 'keyUsage=critical,keyCertSign']);
		signed('leaf', 'int', [ip]);
		// Valid until the day before it was issued.
		signed('expired', 'expired', [ip], '-1');
		const leaf = read('leaf.key');
		const chain = read('leaf.pem') + read('int.pem') + read('root.pem');
		return {
			selfSigned: {
				key: read('self.key'),
				cert: read('self.pem'),
				code: 'DEPTH_ZERO_SELF_SIGNED_CERT',
			},
			clientAuthOnly: {
				key: read('purpose.key'),
				cert: read('purpose.pem'),
				code: 'INVALID_PURPOSE',
			},
			pathLength: { key: leaf, cert: chain, code: 'PATH_LENGTH_EXCEEDED' },
			leafOnly: { key: leaf, cert: read('leaf.pem'), code: 'UNABLE_TO_VERIFY_LEAF_SIGNATURE' },
			expired: { key: read('expired.key'), cert: read('expired.pem'), code: 'CERT_HAS_EXPIRED' },
		};
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}
