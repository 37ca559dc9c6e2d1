// What each engine has and what edgeseg does without it: one table that the browser tests assert in
// each engine (test/browser/engine-support.test.ts, test/e2e/engines.test.ts) and that docs/engines.md shows
// (test/unit/engine-support-table.test.ts keeps docs/engines.md's copy equal to renderSupportTable()).
import type { EngineName } from './index.js';

export interface EngineSupport {
  label: string;
  /** The version tested: its major (Chromium, Firefox) or minor (WebKitGTK) release. */
  version: string;
  /** `navigator.gpu` exists (an adapter is another matter: headless Chromium here has none). */
  webgpu: boolean;
  /** SharedArrayBuffer on a cross-origin isolated page: what WASM threads need. */
  sharedArrayBuffer: boolean;
  /** ImageDecoder gives a JPEG's Y, Cb, Cr planes (I420/I422/I444). */
  jpegPlanes: boolean;
  /** A VideoFrame (an opaque decoded image, a camera's YUV) reports its orientation and copies to RGBA as a canvas draws it. */
  videoFrameCopy: boolean;
  webLocks: boolean;
  measureMemory: boolean;
  offscreenCanvasInWorker: boolean;
}

export const SUPPORT: Record<EngineName, EngineSupport> = {
  chromium: {
    label: 'Chromium',
    version: '156',
    webgpu: true,
    sharedArrayBuffer: true,
    jpegPlanes: true,
    videoFrameCopy: true,
    webLocks: true,
    measureMemory: true,
    offscreenCanvasInWorker: true,
  },
  firefox: {
    label: 'Firefox ESR',
    version: '153',
    webgpu: false,
    sharedArrayBuffer: true,
    jpegPlanes: false,
    videoFrameCopy: false,
    webLocks: true,
    measureMemory: false,
    offscreenCanvasInWorker: true,
  },
  webkit: {
    label: "WebKitGTK (Safari's engine)",
    version: '2.50',
    webgpu: false,
    sharedArrayBuffer: false,
    jpegPlanes: false,
    videoFrameCopy: false,
    webLocks: true,
    measureMemory: false,
    offscreenCanvasInWorker: true,
  },
};

/** What edgeseg does where an engine lacks each of these (docs/engines.md's "falls back" column). */
const FALLBACK: Record<'webgpu' | 'sharedArrayBuffer' | 'jpegPlanes' | 'videoFrameCopy' | 'measureMemory', string> = {
  webgpu: 'no WebGPU: `wasm` (fallbacks: BACKEND_UNAVAILABLE)',
  sharedArrayBuffer: 'no SharedArrayBuffer: WASM on one thread (fallbacks: NO_SHARED_MEMORY)',
  jpegPlanes: 'no JPEG planes from ImageDecoder: createImageBitmap decodes JPEGs to RGB',
  videoFrameCopy: 'no VideoFrame copy to RGBA: decoded images and camera frames are read through an OffscreenCanvas',
  measureMemory: 'no measureUserAgentSpecificMemory: only the memory test uses it (Chromium only)',
};

/** docs/engines.md's support table, in Markdown. */
export function renderSupportTable(): string {
  const rows = (Object.keys(SUPPORT) as EngineName[]).map((name) => {
    const s = SUPPORT[name];
    const backends = s.webgpu ? 'webgpu (with an adapter), wasm, hosted' : 'wasm, hosted';
    const threads = s.sharedArrayBuffer ? 'yes (COOP/COEP)' : 'one';
    const lacks = (Object.keys(FALLBACK) as Array<keyof typeof FALLBACK>).filter((k) => !s[k]).map((k) => FALLBACK[k]);
    return `| ${s.label} | ${s.version} | ${backends} | ${threads} | ${lacks.length ? lacks.join('; ') : 'nothing'} |`;
  });
  return ['| Engine | Version tested | Backends | WASM threads | What falls back, and to what |', '|---|---|---|---|---|', ...rows].join(
    '\n',
  );
}
