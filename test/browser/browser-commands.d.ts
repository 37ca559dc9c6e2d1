// The browser tests' server-side commands (see commands.ts), typed for `import { commands } from 'vitest/browser'`.
import type { ScriptedAnswer } from '../fixtures/platform-test-server.js';
import type { RecordedRequestJson } from './commands.js';

declare module 'vitest/browser' {
  interface BrowserCommands {
    testServerUrl: () => Promise<string>;
    scriptTestServer: (route: string, answers: ScriptedAnswer[]) => Promise<void>;
    resetTestServer: () => Promise<void>;
    testServerRequests: () => Promise<RecordedRequestJson[]>;
  }
}
