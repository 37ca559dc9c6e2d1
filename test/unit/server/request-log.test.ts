// The request log's view of a URL: keys masked in the spellings the server reads and in those it does not.
import { describe, expect, test } from 'vitest';
import { loggedUrl, maskSecrets } from '../../../server/request-log.js';

const KEY = 'Zq3xV9kLm2Pw8RtY5uBn7CdE1fGh4JsA';
const PROVIDER = 'sk-proj-0123456789abcdefABCDEF';
const twice = (text: string) => encodeURIComponent(encodeURIComponent(text));
const everyByte = (text: string) => [...text].map((c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`).join('');

describe('loggedUrl', () => {
  test('spellings the server reads: masked as before', () => {
    expect(loggedUrl('/ws', `api_key=${KEY}`, [KEY])).toBe('/ws?api_key=***');
    expect(loggedUrl('/ws', `api%5Fkey=${KEY}`, [KEY])).toBe('/ws?api_key=***');
    expect(loggedUrl(`/ws/${everyByte(KEY)}`, '', [KEY])).toBe('/ws/***');
    expect(loggedUrl('/infer/p/2', `image=${encodeURIComponent(`http://h/x.png?token=${KEY}`)}`, [KEY])).toBe(
      '/infer/p/2?image=http%3A%2F%2Fh%2Fx.png%3Ftoken%3D***',
    );
  });

  test('spellings it does not read: a name or value encoded twice, a key cut short or mistyped, in the path or the query', () => {
    const cases: [string, string, string][] = [
      // The name decodes to api_key only on a second decoding: the server does not read it, the log masks it.
      ['/ws', `api%255Fkey=${KEY.slice(0, 31)}`, '/ws?api%255Fkey=***'],
      ['/ws', `other=${twice(KEY)}`, '/ws?other=***'],
      ['/ws', `other=${KEY.slice(0, 31)}`, '/ws?other=***'],
      ['/ws', `q=x-${KEY.slice(3, 14)}-y`, '/ws?q=***'],
      [`/${KEY.slice(0, 31)}`, '', '/***'],
      [`/${twice(KEY)}/settings`, '', '/***/settings'],
      [`/ws/${KEY.slice(0, -1)}Q`, '', '/ws/***'],
      ['/ws', `${KEY.slice(1)}=1`, '/ws?***=1'],
      ['/ws', `x=${PROVIDER.slice(0, 20)}`, '/ws?x=***'],
    ];
    for (const [path, query, logged] of cases) {
      const line = loggedUrl(path, query, [KEY, PROVIDER]);
      expect([path, query, line]).toEqual([path, query, logged]);
    }
  });

  test('what holds no piece of a key is shown as sent', () => {
    expect(loggedUrl('/edgeseg-demo/shapes/search', 'limit=5&tag=red%20circle', [KEY, undefined])).toBe(
      '/edgeseg-demo/shapes/search?limit=5&tag=red%20circle',
    );
    // Seven characters of a key are not taken for it.
    expect(loggedUrl(`/ws/${KEY.slice(0, 7)}`, '', [KEY])).toBe(`/ws/${KEY.slice(0, 7)}`);
    expect(loggedUrl('/model-files/ws/p/2/signed.1700000000.abcdef0123/weights.onnx', '', [KEY])).toBe(
      '/model-files/ws/p/2/signed.1700000000.***/weights.onnx',
    );
  });
});

test('maskSecrets masks keys and their pieces in any text (an error logged with its stack)', () => {
  expect(maskSecrets(`Error: no workspace for ${KEY.slice(2)} at x (/a/b.js:1:2)`, [KEY])).toBe(
    'Error: no workspace for *** at x (/a/b.js:1:2)',
  );
});
