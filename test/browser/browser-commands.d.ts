// The browser tests' server-side commands (see commands.ts), typed for `import { commands } from 'vitest/browser'`.
import type { ScriptedAnswer } from '../fixtures/platform-test-server.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import type { RecordedRequestJson } from './commands.js';
import type { HostHabit } from '../fixtures/hostile-host.js';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** The Node native payload for `image` (a path from the repository root) with the model folder `model`. */
    nodeSegment: (model: string, image: string, confidence: number) => Promise<SegmentationPayload>;
    /** The Node native soft alpha (`segmentRaw(…, { alpha: true })`) for `image` with the model folder `model`, base64. */
    nodeAlpha: (model: string, image: string) => Promise<string>;
    /** onnxruntime-node's first output for an NCHW float32 input (base64), with the model file `model`. */
    nativeRun: (model: string, input: string, dims: number[]) => Promise<string>;
    /** Serves test/fixtures/models as a host with `habit` would (files named in `hide` missing); returns its URL. */
    startHostileHost: (habit: HostHabit, hide?: string[]) => Promise<string>;
    testServerUrl: () => Promise<string>;
    startModelServer: () => Promise<string>;
    /** The models of test/fixtures/wild/models.json, fetched and served over a second origin: each package's URL, by name. */
    wildModels: () => Promise<Record<string, string>>;
    localPlatform: () => Promise<{ baseUrl: string; inferenceUrl: string; apiKey: string }>;
    stopModelServer: () => Promise<void>;
    scriptTestServer: (route: string, answers: ScriptedAnswer[]) => Promise<void>;
    resetTestServer: () => Promise<void>;
    testServerRequests: () => Promise<RecordedRequestJson[]>;
  }
}
