import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/** The environment variable that holds the key OAuth credentials are encrypted with. */
export const SECRET_KEY_VARIABLE = 'WARDRIK_SECRET_KEY';

const VERSION = 'v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;

/**
 * Encrypts and decrypts the OAuth credentials MCP toolsets keep in the store: AES-256-GCM with a
 * fresh 96-bit IV per value, bound to where the value lives (`context`: server, principal, kind),
 * so a value copied to another row does not decrypt. Sealed: `v1.IV.CIPHERTEXT+TAG` (base64url).
 */
export class SecretBox {
  readonly #key: Buffer;

  constructor(key: Uint8Array) {
    if (key.length !== 32) throw new Error(`an AES-256 key has 32 bytes, got ${key.length}`);
    this.#key = Buffer.from(key);
  }

  seal(plain: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.#key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${VERSION}.${iv.toString('base64url')}.${sealed.toString('base64url')}`;
  }

  /** The plain text, or throws (without saying anything of the value) if it was not sealed with this key and context. */
  open(sealed: string, context: string): string {
    const [version, iv, body] = sealed.split('.');
    if (version !== VERSION || iv === undefined || body === undefined) {
      throw new Error(`a stored OAuth credential is not in the format this Wardrik writes (${VERSION})`);
    }
    const bytes = Buffer.from(body, 'base64url');
    if (bytes.length < TAG_BYTES) throw new Error('a stored OAuth credential is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', this.#key, Buffer.from(iv, 'base64url'));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(bytes.subarray(bytes.length - TAG_BYTES));
      return Buffer.concat([decipher.update(bytes.subarray(0, bytes.length - TAG_BYTES)), decipher.final()]).toString(
        'utf8',
      );
    } catch {
      throw new Error(
        `a stored OAuth credential does not decrypt with ${SECRET_KEY_VARIABLE}: the key changed, or the row was altered`,
      );
    }
  }
}

/**
 * The key in `WARDRIK_SECRET_KEY`: 32 bytes as 64 hex characters (`openssl rand -hex 32`) or as
 * base64. Throws an `Error` naming the variable (and `what` needs it) when it is missing or malformed.
 */
export function secretBoxFromEnvironment(what: string, environment: NodeJS.ProcessEnv = process.env): SecretBox {
  const value = environment[SECRET_KEY_VARIABLE]?.trim();
  const how = `set it to 32 random bytes as 64 hex characters (openssl rand -hex 32), the same on every node`;
  if (value === undefined || value === '') {
    throw new Error(
      `${what} keeps OAuth tokens in the store encrypted with ${SECRET_KEY_VARIABLE}, which is not set: ${how}`,
    );
  }
  const key = /^[0-9a-fA-F]{64}$/.test(value) ? Buffer.from(value, 'hex') : base64Key(value);
  if (key === undefined) {
    throw new Error(`${SECRET_KEY_VARIABLE} is not a 32-byte key (64 hex characters or base64): ${how}`);
  }
  return new SecretBox(key);
}

function base64Key(value: string): Buffer | undefined {
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) return undefined;
  const key = Buffer.from(value, value.includes('-') || value.includes('_') ? 'base64url' : 'base64');
  return key.length === 32 ? key : undefined;
}
