import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createHmac } from 'node:crypto';
import { expect, test } from 'vitest';
import { HttpError } from '../../../server/http.js';
import { loadSigningSecret, SIGNING_KEY_FILE, UrlSigner } from '../../../server/signing.js';

const secret = Buffer.alloc(32, 9);
const refusal = (f: () => void) => {
  try {
    f();
  } catch (error) {
    return [(error as HttpError).status, (error as HttpError).type];
  }
  return null;
};

test('a signature is the HMAC-SHA256 of scope and expiry, valid until it expires, for its scope only', () => {
  let now = 1_700_000_000_000;
  const signer = new UrlSigner(secret, 60, () => now);
  const { expires, sig } = signer.sign('/image-files/ws/p/1');
  expect(expires).toBe(1_700_000_060);
  expect(sig).toBe(createHmac('sha256', secret).update('/image-files/ws/p/1\n1700000060').digest('hex'));
  expect(signer.signUrl('http://h/image-files/ws/p/1', '/image-files/ws/p/1')).toBe(
    `http://h/image-files/ws/p/1?expires=1700000060&sig=${sig}`,
  );
  expect(refusal(() => signer.verify('/image-files/ws/p/1', String(expires), sig))).toBeNull();
  expect(refusal(() => signer.verify('/image-files/ws/p/2', String(expires), sig))).toEqual([403, 'InvalidSignature']);
  expect(refusal(() => signer.verify('/image-files/ws/p/1', String(expires + 1), sig))).toEqual([403, 'InvalidSignature']);
  expect(refusal(() => signer.verify('/image-files/ws/p/1', null, null))).toEqual([403, 'SignatureRequired']);
  expect(refusal(() => signer.verify('/image-files/ws/p/1', String(expires), 'abc'))).toEqual([403, 'InvalidSignature']);
  expect(refusal(() => new UrlSigner(Buffer.alloc(32, 1), 60, () => now).verify('/image-files/ws/p/1', String(expires), sig))).toEqual([
    403,
    'InvalidSignature',
  ]);
  now += 60_000;
  expect(refusal(() => signer.verify('/image-files/ws/p/1', String(expires), sig))).toBeNull();
  now += 1000;
  expect(refusal(() => signer.verify('/image-files/ws/p/1', String(expires), sig))).toEqual([403, 'SignatureExpired']);
  expect(() => new UrlSigner(secret, 0)).toThrow('≥ 1');
});

test('the secret is made once per data directory, kept, and agreed on by concurrent openers', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'edgeseg-signing-'));
  try {
    const all = await Promise.all(Array.from({ length: 8 }, () => loadSigningSecret(dir)));
    expect(all[0]).toHaveLength(32);
    for (const s of all) expect(s.equals(all[0]!)).toBe(true);
    expect(Buffer.from((await readFile(join(dir, SIGNING_KEY_FILE), 'utf8')).trim(), 'hex').equals(all[0]!)).toBe(true);
    expect((await loadSigningSecret(dir)).equals(all[0]!)).toBe(true);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});
