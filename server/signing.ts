// Signed file URLs, as the platform hands out signed storage URLs: model package files, image files and
// export downloads are reached without the API key (an <img>, a worker's fetch, a download link), so each
// URL carries a short-lived HMAC of what it grants instead.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { link, unlink } from 'node:fs/promises';
import { join } from 'node:path';
import { HttpError } from './http.js';
import { FILE_MODE, readOwnFile } from './data-dir.js';
import { writeAtomic } from './store.js';

/** The per-data-directory secret; deleting it revokes every URL handed out so far. */
export const SIGNING_KEY_FILE = 'signing-key';
/** How long a handed-out URL stays valid. One day: a page of search results stays usable for a session. */
export const DEFAULT_SIGNED_URL_TTL_S = 86_400;

/** `expires` (unix seconds) and `sig` (hex HMAC-SHA256 of `scope` and `expires`). */
export interface Signature {
  expires: number;
  sig: string;
}

export class UrlSigner {
  constructor(
    private readonly secret: Buffer,
    readonly ttlS: number = DEFAULT_SIGNED_URL_TTL_S,
    private readonly now: () => number = Date.now,
  ) {
    if (!Number.isInteger(ttlS) || ttlS < 1) throw new Error(`the signed URL lifetime must be a whole number of seconds ≥ 1, got ${ttlS}`);
  }

  /**
   * A signature for `scope`: the file's path below the mount point (`/image-files/ws/project/id`), or for
   * model packages the version's folder (`/model-files/ws/project/2/`), which covers every file in it.
   */
  sign(scope: string): Signature {
    const expires = Math.floor(this.now() / 1000) + this.ttlS;
    return { expires, sig: this.#mac(scope, expires) };
  }

  /** `url` with `?expires=…&sig=…` for `scope`. */
  signUrl(url: string, scope: string): string {
    const { expires, sig } = this.sign(scope);
    return `${url}${url.includes('?') ? '&' : '?'}expires=${expires}&sig=${sig}`;
  }

  /** Refuses (403) a missing, malformed, wrong or expired signature for `scope`. */
  verify(scope: string, expiresText: string | null, sig: string | null): void {
    const hint = 'file URLs are signed: use the URL exactly as a route handed it out, or ask that route again for a fresh one';
    if (expiresText === null || sig === null) throw new HttpError(403, 'this file URL is not signed', 'SignatureRequired', hint);
    const expires = Number(expiresText);
    if (!/^\d{1,12}$/.test(expiresText) || !/^[0-9a-f]{64}$/.test(sig))
      throw new HttpError(403, 'this file URL has a malformed signature', 'InvalidSignature', hint);
    // Compared in constant time so that a signature cannot be guessed byte by byte from response times.
    if (!timingSafeEqual(Buffer.from(this.#mac(scope, expires), 'hex'), Buffer.from(sig, 'hex'))) {
      throw new HttpError(403, 'this file URL has a wrong signature', 'InvalidSignature', hint);
    }
    if (expires * 1000 < this.now()) throw new HttpError(403, 'this file URL has expired', 'SignatureExpired', hint);
  }

  #mac(scope: string, expires: number): string {
    return createHmac('sha256', this.secret).update(`${scope}\n${expires}`).digest('hex');
  }
}

/**
 * The data directory's signing secret, made on first use. Made by linking a complete temporary file into
 * place, so that two servers opening the same directory at once agree on one secret and neither reads a
 * half-written one.
 */
export async function loadSigningSecret(dataDir: string): Promise<Buffer> {
  const path = join(dataDir, SIGNING_KEY_FILE);
  // Not through a symbolic link, and only a file of this user's (its mode is repaired with the directory's).
  const read = async () => Buffer.from((await readOwnFile(path)).toString('utf8').trim(), 'hex');
  try {
    return await read();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  const temp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeAtomic(temp, `${randomBytes(32).toString('hex')}\n`, FILE_MODE);
  try {
    await link(temp, path);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  } finally {
    await unlink(temp).catch(() => {});
  }
  return read();
}
