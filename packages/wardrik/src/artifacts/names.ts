/** The longest artifact name, in characters (without its `user:` prefix). */
export const MAX_ARTIFACT_NAME_LENGTH = 255;

/** Why `name` can't name an artifact, or undefined when it can. */
export function artifactNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string') return `name: expected a string, got ${typeof name}`;
  const bare = name.startsWith('user:') ? name.slice('user:'.length) : name;
  const shown = JSON.stringify(name.length > 60 ? `${name.slice(0, 60)}…` : name);
  if (bare.length === 0)
    return `name: ${shown} names no artifact (expected a file name such as report.pdf or user:avatar.png)`;
  if (bare.length > MAX_ARTIFACT_NAME_LENGTH) {
    return `name: ${shown} is ${bare.length} characters long (at most ${MAX_ARTIFACT_NAME_LENGTH})`;
  }
  if (/[/\\]/.test(bare)) return `name: ${shown} holds a / or \\ (an artifact name is a file name, not a path)`;
  if (bare === '.' || bare === '..') return `name: ${shown} is not a file name`;
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what is refused
  if (/[\u0000-\u001f\u007f]/.test(bare)) return `name: ${shown} holds a control character`;
  if (bare.trim() !== bare) return `name: ${shown} starts or ends with white space`;
  return undefined;
}

/** The type/subtype part of a media type (RFC 6838 restricted names). */
const MEDIA_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;
/** One `; name=value` parameter (a token or a quoted string). */
const PARAMETER = /^[a-z0-9!#$&^_.+-]+=(?:[a-z0-9!#$&^_.+-]+|"[^"\\\r\n]*")$/i;

/** A media type with `type/subtype` lower-cased, or throws a TypeError naming what is wrong. */
export function normalizeMediaType(mediaType: unknown): string {
  if (typeof mediaType !== 'string' || mediaType.trim() === '') {
    throw new TypeError(
      `mediaType: expected a media type such as text/plain or image/png, got ${JSON.stringify(mediaType)}`,
    );
  }
  if (mediaType.length > 255)
    throw new TypeError(`mediaType: ${mediaType.length} characters is too long (at most 255)`);
  const [essence = '', ...parameters] = mediaType.split(';').map((part) => part.trim());
  const type = essence.toLowerCase();
  if (!MEDIA_TYPE.test(type) || parameters.some((parameter) => !PARAMETER.test(parameter))) {
    throw new TypeError(
      `mediaType: ${JSON.stringify(mediaType)} is not a media type (expected type/subtype, e.g. text/csv or application/pdf)`,
    );
  }
  return [type, ...parameters].join('; ');
}

/** Whether bytes of this media type are text a model can read. */
export function isTextual(mediaType: string): boolean {
  const type = mediaType.split(';')[0] ?? '';
  return (
    type.startsWith('text/') ||
    /^application\/(json|xml|yaml|x-yaml|toml|javascript|x-ndjson|csv|sql|graphql)$/.test(type) ||
    type.endsWith('+json') ||
    type.endsWith('+xml')
  );
}
