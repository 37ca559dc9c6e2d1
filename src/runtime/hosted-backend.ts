// The `hosted` backend: the platform's hosted segmentation route, through PlatformClient.
import { BackendError } from '../errors/index.js';
import type { PlatformClient } from '../platform/platform-client.js';
import type { RawSegmentation, SegmentationPayload } from '../payload/index.js';
import { rawFromPayloadInBrowser } from '../payload/png-gray-browser.js';
import type { Backend, BackendCallOptions, BackendOutcome } from './backend.js';
import { toHostedImage, type ImageSource } from './image-source.js';

export class HostedBackend implements Backend {
  readonly name = 'hosted' as const;

  constructor(
    private readonly platform: PlatformClient,
    private readonly project: string,
    private readonly version: number | string,
  ) {}

  async segment(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<SegmentationPayload>> {
    const t0 = performance.now();
    const image = await toHostedImage(source);
    // Platform errors (authentication, rate limits, an unreachable server) are the caller's to see:
    // there is no backend after this one.
    const value = await this.platform.segmentHosted(this.project, this.version, image, {
      confidence: options.confidence,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    return { ok: true, value, timings: { total: performance.now() - t0 } };
  }

  async segmentRaw(source: ImageSource, options: BackendCallOptions): Promise<BackendOutcome<RawSegmentation>> {
    const outcome = await this.segment(source, options);
    if (!outcome.ok) return outcome;
    // The browser's PNG decoder, so the segmenter's own module graph carries no PNG or inflate code (a
    // page that segments locally loads none; the platform client that fetched this answer checked it).
    const raw = await rawFromPayloadInBrowser(outcome.value);
    // The route answers with class ids only: the alpha is their mask's.
    if (options.alpha) raw.alpha = hardAlpha(raw);
    return { ok: true, value: raw, timings: outcome.timings };
  }

  async dispose(): Promise<void> {}
}

/** 0 where the class is the background (the class named so, else id 0), 255 elsewhere. */
function hardAlpha(raw: RawSegmentation): Uint8Array {
  const named = Object.entries(raw.class_map).find(([, name]) => name.toLowerCase() === 'background');
  const background = named ? Number(named[0]) : 0;
  return raw.classIds.map((id) => (id === background ? 0 : 255));
}

export function hostedUnavailable(reason: string): BackendError {
  return new BackendError('BACKEND_UNAVAILABLE', reason, { backend: 'hosted' });
}
