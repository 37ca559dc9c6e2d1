// Which Host headers and Origins the local platform answers (the handler's checks, without a server).
import type { IncomingMessage } from 'node:http';
import { describe, expect, test } from 'vitest';
import { createAccessPolicy, normalizeOrigin } from '../../../server/access.js';

const request = (host: string | undefined, localAddress = '127.0.0.1', headers: Record<string, string> = {}) =>
  ({ headers: { ...(host === undefined ? {} : { host }), ...headers }, socket: { localAddress } }) as unknown as IncomingMessage;

describe('Host', () => {
  const policy = createAccessPolicy({ publicUrl: 'https://seg.example/base' });
  test.each([
    ['127.0.0.1:8787', true],
    ['localhost', true],
    ['LocalHost:1', true],
    ['localhost.:8787', true],
    ['a.b.localhost:8787', true],
    ['127.255.0.9', true],
    ['[::1]:8787', true],
    ['seg.example', true],
    ['seg.example:443', true],
    ['attacker.example', false],
    ['localhost.attacker.example', false],
    ['0.0.0.0:8787', false],
    ['[::]:8787', false],
    ['127.0.0.1.attacker.example', false],
    ['user@localhost', false],
    ['localhost/x', false],
    ['', false],
    [undefined, false],
    ['10.0.0.5:8787', false],
    ['[::ffff:7f00:1]:8787', false],
  ])('%s → %s', (host, allowed) => {
    expect(policy.hostAllowed(request(host))).toBe(allowed);
  });

  test('the address the connection came in on (a server on --host 10.0.0.5 reached as such), IPv6 too', () => {
    expect(policy.hostAllowed(request('10.0.0.5:8787', '10.0.0.5'))).toBe(true);
    expect(policy.hostAllowed(request('10.0.0.5:8787', '::ffff:10.0.0.5'))).toBe(true);
    expect(policy.hostAllowed(request('[fe80::1]:8787', 'fe80::1'))).toBe(true);
    expect(policy.hostAllowed(request('10.0.0.6:8787', '10.0.0.5'))).toBe(false);
  });
});

describe('Origin', () => {
  const policy = createAccessPolicy({ allowOrigins: ['https://App.example:443/'] });
  const req = request('127.0.0.1:8787');
  test.each([
    ['http://localhost:3000', true],
    ['https://127.0.0.1', true],
    ['http://[::1]:5173', true],
    ['http://x.localhost', true],
    ['https://app.example', true],
    ['http://app.example', false],
    ['https://app.example:8443', false],
    ['null', false],
    ['https://attacker.example', false],
    ['http://localhost.attacker.example', false],
    ['file://', false],
    ['garbage', false],
  ])('%s → %s', (origin, allowed) => {
    expect(policy.originAllowed(origin, req)).toBe(allowed);
  });

  test("a page of the server's own origin, reached by its address", () => {
    const lan = request('10.0.0.5:5173', '10.0.0.5');
    expect(policy.originAllowed('http://10.0.0.5:5173', lan)).toBe(true);
    expect(policy.originAllowed('http://10.0.0.5:9999', lan)).toBe(false);
  });

  test('sameOrigin: no page, or a page of this origin; never another, loopback or not', () => {
    expect(policy.sameOrigin(request('127.0.0.1:5173'))).toBe(true);
    expect(policy.sameOrigin(request('127.0.0.1:5173', '127.0.0.1', { 'sec-fetch-site': 'same-origin' }))).toBe(true);
    expect(
      policy.sameOrigin(request('127.0.0.1:5173', '127.0.0.1', { 'sec-fetch-site': 'same-origin', origin: 'http://127.0.0.1:5173' })),
    ).toBe(true);
    expect(policy.sameOrigin(request('127.0.0.1:5173', '127.0.0.1', { 'sec-fetch-site': 'same-site' }))).toBe(false);
    expect(policy.sameOrigin(request('127.0.0.1:5173', '127.0.0.1', { origin: 'http://localhost:5173' }))).toBe(false);
    expect(policy.sameOrigin(request('127.0.0.1:5173', '127.0.0.1', { origin: 'https://app.example' }))).toBe(false);
  });

  test('normalizeOrigin refuses what is not an http(s) origin', () => {
    expect(normalizeOrigin('HTTPS://App.Example:443/path')).toBe('https://app.example');
    expect(() => normalizeOrigin('ftp://a.example')).toThrow('not an http(s) origin');
    expect(() => normalizeOrigin('app.example')).toThrow('not an http(s) origin');
  });
});
