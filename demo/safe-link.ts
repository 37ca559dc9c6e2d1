// Links the demo makes from what a platform answers: only web links. The user may point the demo at any
// platform, and an answer's `javascript:` link would run in the demo's page when clicked.

/** `url` resolved against the page when it is an http(s) URL; null for any other scheme or no URL at all. */
export function webHref(url: unknown, base: string): string | null {
  if (typeof url !== 'string') return null;
  try {
    const parsed = new URL(url, base);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.href : null;
  } catch {
    return null;
  }
}
