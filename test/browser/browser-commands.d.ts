// The browser tests' server-side commands (see commands.ts), typed for `import { commands } from 'vitest/browser'`.
import type { ScriptedAnswer } from '../fixtures/platform-test-server.js';
import type { SegmentationPayload } from '../../src/payload/index.js';
import type { RecordedRequestJson } from './commands.js';

declare module 'vitest/browser' {
  interface BrowserCommands {
    /** The Node native payload for `image` (a path from the repository root) with the model folder `model`. */
    nodeSegment: (model: string, image: string, confidence: number) => Promise<SegmentationPayload>;
    /** onnxruntime-node's first output for an NCHW float32 input (base64), with the model file `model`. */
    nativeRun: (model: string, input: string, dims: number[]) => Promise<string>;
    testServerUrl: () => Promise<string>;
    startModelServer: () => Promise<string>;
    localPlatform: () => Promise<{ baseUrl: string; inferenceUrl: string; apiKey: string }>;
    stopModelServer: () => Promise<void>;
    scriptTestServer: (route: string, answers: ScriptedAnswer[]) => Promise<void>;
    resetTestServer: () => Promise<void>;
    testServerRequests: () => Promise<RecordedRequestJson[]>;
  }
}
