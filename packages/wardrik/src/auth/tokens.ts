import { createHash, randomBytes } from 'node:crypto';

/** Every bearer token starts with this, so that a leaked one is easy to recognize (and scan for). */
export const TOKEN_PREFIX = 'wdk_';

/** A token: the prefix and 32 random bytes in base64url (43 characters). */
const TOKEN_PATTERN = /^wdk_[A-Za-z0-9_-]{43}$/;

/**
 * A new bearer token secret: `wdk_` and 32 random bytes (256 bits) in base64url. It is shown once;
 * stores keep only {@link hashToken} of it.
 *
 * @example
 * ```ts
 * const token = generateToken(); // 'wdk_3q2-…' (47 characters)
 * ```
 */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/**
 * The hash a token is stored and looked up by: sha256, hex. A token carries 256 random bits, so
 * a fast unsalted hash is enough: nobody can guess their way back to it.
 *
 * @example
 * ```ts
 * hashToken('wdk_example'); // 64 hex characters
 * ```
 */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether `value` has the shape of a token made by {@link generateToken}.
 *
 * @example
 * ```ts
 * isTokenShaped(generateToken()); // true
 * isTokenShaped('hunter2'); // false
 * ```
 */
export function isTokenShaped(value: string): boolean {
  return TOKEN_PATTERN.test(value);
}

/**
 * A new token id (`tok_` and 12 random bytes in base64url): what lists show and what revoking
 * names. It reveals nothing about the secret.
 *
 * @example
 * ```ts
 * generateTokenId(); // 'tok_Jx0…'
 * ```
 */
export function generateTokenId(): string {
  return 'tok_' + randomBytes(12).toString('base64url');
}

/**
 * A new principal id (`prn_` and 12 random bytes in base64url).
 *
 * @example
 * ```ts
 * generatePrincipalId(); // 'prn_Q8c…'
 * ```
 */
export function generatePrincipalId(): string {
  return 'prn_' + randomBytes(12).toString('base64url');
}
