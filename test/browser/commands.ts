// Server-side helpers that browser tests call through Vitest's `commands`: a scriptable loopback server.
import type { BrowserCommand } from 'vitest/node';
import { startTestServer, type ScriptedAnswer, type TestServer } from '../fixtures/platform-test-server.js';

// On globalThis: Vitest loads this module once for the config and again for the global setup.
const state = globalThis as { __edgesegTestServer?: Promise<TestServer> };
const testServer = () => (state.__edgesegTestServer ??= startTestServer());

export interface RecordedRequestJson {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

export const scriptServerCommands = {
  testServerUrl: (async () => (await testServer()).url) as BrowserCommand<[]>,
  scriptTestServer: (async (_ctx, route: string, answers: ScriptedAnswer[]) => {
    (await testServer()).script(route, ...answers);
  }) as BrowserCommand<[string, ScriptedAnswer[]]>,
  resetTestServer: (async () => (await testServer()).reset()) as BrowserCommand<[]>,
  testServerRequests: (async () =>
    (await testServer()).requests.map((r) => ({ method: r.method, path: r.path, query: Object.fromEntries(r.query), headers: r.headers, body: r.body }))) as BrowserCommand<[]>,
};

export async function closeCommandServers(): Promise<void> {
  const server = state.__edgesegTestServer;
  delete state.__edgesegTestServer;
  if (server) await (await server).close();
}
