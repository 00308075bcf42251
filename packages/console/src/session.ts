/** The sign-in token lives in this tab's sessionStorage only: never in a URL, a cookie or localStorage. */
const KEY = 'wardrik.token';

export function savedToken(): string | undefined {
  try {
    return sessionStorage.getItem(KEY) ?? undefined;
  } catch {
    return undefined;
  }
}

export function saveToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
