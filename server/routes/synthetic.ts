// `POST /synthetic-image`: an image added to a project from a prompt or a URL (see ../synthetic.ts).
import { decodeImage } from '../../src/decode/decode-node.js';
import { pixelWeight } from '../decode-gate.js';
import { imageEmbedding } from '../embedding.js';
import { sendJson } from '../http.js';
import type { ProjectState, WorkspaceState } from '../store.js';
import { colorOnlyEmbedding, syntheticImage } from '../synthetic.js';
import { imageUrl, type Platform, type Route } from './route.js';

export function syntheticRoute({ store, signer, segmenters, limits, maxJson }: Platform): Route {
  /** Embedding of a new image: the model's own output where the project has a trained version. */
  const embedFor = (ws: WorkspaceState, project: ProjectState) => async (rgb: Uint8Array, width: number, height: number) => {
    const version = [...project.versions].reverse().find((v) => v.model);
    const background = project.classes.indexOf('background');
    if (!version) return { embedding: colorOnlyEmbedding(rgb, project.classes.length - 1), classes: [] };
    const raw = await (await segmenters.get(version)).segmentRaw({ data: rgb, width, height, channels: 3 });
    const present = [...new Set(raw.classIds)].filter((c) => c !== background);
    return {
      embedding: imageEmbedding(rgb, raw.classIds, project.classes.length, background),
      classes: present.map((c) => project.classes[c]!),
    };
  };

  return {
    methods: ['POST'],
    path: '/synthetic-image',
    auth: 'key',
    otherMethods: 'use POST',
    answer: async ({ res, urls, readJson, ws: caller }) => {
      const ws = caller!;
      const body = await readJson(maxJson + 30_000_000);
      sendJson(
        res,
        200,
        await syntheticImage(store, ws, body, {
          maxImageBytes: limits.maxImageBytes,
          // As /infer caps the image it fetches.
          maxAnswerBytes: limits.maxImageBytes,
          fetchTimeoutMs: limits.fetchTimeoutMs,
          decode: (bytes) =>
            segmenters.gate.run(pixelWeight(bytes, limits.maxPixels), () => decodeImage(bytes, { maxPixels: limits.maxPixels })),
          embed: (project) => embedFor(ws, project),
          imageUrl: (project, image) => imageUrl(signer, urls, ws, project.url)(image),
        }),
      );
    },
  };
}
