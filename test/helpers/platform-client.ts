// One scriptable loopback server per test file and a fresh PlatformClient against it for each test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { PlatformClient, type PlatformError } from '../../src/platform/index.js';
import { startTestServer, type TestServer } from '../fixtures/platform-test-server.js';

export const TEST_KEY = 'sk-test-SECRET-1234567890';

export interface ClientUnderTest {
  server: TestServer;
  client: PlatformClient;
}

/** Registers the hooks; read `server` and `client` from the returned object inside tests. */
export function usePlatformTestServer(timeoutMs = 2000): ClientUnderTest {
  const under = {} as ClientUnderTest;
  beforeAll(async () => {
    under.server = await startTestServer();
  });
  afterAll(() => under.server.close());
  beforeEach(() => {
    under.server.reset();
    under.client = new PlatformClient({
      apiKey: TEST_KEY,
      baseUrl: under.server.url,
      inferenceUrl: `${under.server.url}/infer`,
      retryBaseMs: 5,
      timeoutMs,
    });
  });
  return under;
}

/** The rejection of `p`, or a failure if it resolves. */
export const errorOf = async (p: Promise<unknown>): Promise<PlatformError> =>
  p.then(
    () => {
      throw new Error('expected a rejection');
    },
    (e) => e as PlatformError,
  );
