/**
 * A certificate authority made for one test run, and server certificates it signs, so local
 * HTTPS servers can stand in for named hosts (docs.example.com...). Node trusts the CA through
 * NODE_EXTRA_CA_CERTS, Chromium through its CACertificates policy (see chromiumCaPolicy).
 */
import { webcrypto } from 'node:crypto'
import { writeFile } from 'node:fs/promises'
import path from 'node:path'
import * as x509 from '@peculiar/x509'

x509.cryptoProvider.set(webcrypto)

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const DAY = 86_400_000

export interface TestCa {
  /** The CA certificate, PEM: the content of a NODE_EXTRA_CA_CERTS file. */
  certPem: string
  /** A key and certificate for `hosts`, for https.createServer. */
  issue(hosts: string[]): Promise<{ key: string; cert: string }>
}

const pem = (label: string, der: ArrayBuffer) =>
  `-----BEGIN ${label}-----\n${Buffer.from(der).toString('base64').replace(/.{64}/g, '$&\n').replace(/\n?$/, '\n')}-----END ${label}-----\n`

export async function createTestCa(): Promise<TestCa> {
  const notBefore = new Date(Date.now() - DAY)
  const notAfter = new Date(Date.now() + 30 * DAY)
  const caKeys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
  const ca = await x509.X509CertificateGenerator.createSelfSigned({
    serialNumber: '01',
    name: 'CN=Lectern test CA',
    notBefore,
    notAfter,
    keys: caKeys,
    signingAlgorithm: ALGORITHM,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
      await x509.SubjectKeyIdentifierExtension.create(caKeys.publicKey),
    ],
  })
  let serial = 1
  return {
    certPem: ca.toString('pem') + '\n',
    async issue(hosts) {
      const keys = await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])
      const cert = await x509.X509CertificateGenerator.create({
        serialNumber: (++serial).toString(16).padStart(2, '0'),
        subject: `CN=${hosts[0]}`,
        issuer: ca.subject,
        notBefore,
        notAfter,
        signingKey: caKeys.privateKey,
        publicKey: keys.publicKey,
        signingAlgorithm: ALGORITHM,
        extensions: [
          new x509.BasicConstraintsExtension(false, undefined, true),
          new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
          new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
          new x509.SubjectAlternativeNameExtension(hosts.map((value) => ({ type: /^[\d.]+$/.test(value) ? 'ip' : 'dns', value }))),
          await x509.AuthorityKeyIdentifierExtension.create(caKeys.publicKey),
          await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
        ],
      })
      return { key: pem('PRIVATE KEY', await webcrypto.subtle.exportKey('pkcs8', keys.privateKey)), cert: cert.toString('pem') + '\n' }
    },
  }
}

/** Chromium's managed policy (a file under /etc/chromium/policies/managed/) trusting the CA. */
export function chromiumCaPolicy(ca: TestCa): string {
  const der = ca.certPem.replace(/-----[A-Z ]+-----|\s/g, '')
  return JSON.stringify({ CACertificates: [der] })
}

/**
 * A certificate for 127.0.0.1 that git trusts for the rest of the suite file: the run's CA is
 * written into `dir` and named by GIT_SSL_CAINFO, which the git commands of a test git server and
 * of Lectern's jobs inherit; `defer` puts the variable back. For git servers over https (in cloud
 * mode a token goes only over https).
 */
export async function gitTrustedCertificate(dir: string, defer: (cleanup: () => void) => void): Promise<{ key: string; cert: string }> {
  const ca = await createTestCa()
  const caFile = path.join(dir, 'ca.pem')
  await writeFile(caFile, ca.certPem)
  const before = process.env.GIT_SSL_CAINFO
  process.env.GIT_SSL_CAINFO = caFile
  defer(() => {
    if (before === undefined) delete process.env.GIT_SSL_CAINFO
    else process.env.GIT_SSL_CAINFO = before
  })
  return ca.issue(['127.0.0.1'])
}
