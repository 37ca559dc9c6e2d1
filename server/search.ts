// POST /{workspace}/{project}/search: filters, ranking by image or text similarity, fields, paging.
import { SEARCH_FIELDS } from '../src/platform/types.js';
import { cosine, promptEmbedding } from './embedding.js';
import { badRequest, checkFields, notFound } from './http.js';
import type { ImageState, ProjectState } from './store.js';

export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 50;

export interface SearchAnswer {
  offset: number;
  total: number;
  results: Record<string, unknown>[];
}

/**
 * Filters first (every given filter must hold), then ranks: by `like_image` (cosine similarity of
 * embeddings, highest first) or by `prompt` (cosine similarity of the prompt's embedding); a prompt naming
 * nothing the embedding space knows, or no ranking at all, orders by creation time, newest first. Ties
 * break by creation time (newest first), then id.
 */
export function search(project: ProjectState, body: Record<string, unknown>, imageUrl: (image: ImageState) => string): SearchAnswer {
  checkFields(body, { prompt: 'string', like_image: 'string', tag: 'string', class_name: 'string', in_dataset: 'string|boolean', batch: 'boolean', batch_id: 'string', fields: 'string[]', offset: 'number', limit: 'number' });
  const offset = body.offset === undefined ? 0 : (body.offset as number);
  const limit = body.limit === undefined ? DEFAULT_LIMIT : (body.limit as number);
  if (!Number.isInteger(offset) || offset < 0) throw badRequest('offset must be an integer ≥ 0');
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw badRequest(`limit must be an integer in 1..${MAX_LIMIT}`, `ask for at most ${MAX_LIMIT} results a page and page with offset`);
  const fields = (body.fields as string[] | undefined) ?? ['id', 'created'];
  const unknown = fields.filter((f) => !(SEARCH_FIELDS as readonly string[]).includes(f));
  if (unknown.length) throw badRequest(`unknown fields: ${unknown.join(', ')}`, `fields may be ${SEARCH_FIELDS.join(', ')}`);

  let images = project.images.filter((i) => matches(i, body));
  const background = project.classes.indexOf('background');
  let score: ((i: ImageState) => number) | null = null;
  if (typeof body.like_image === 'string') {
    const ref = project.images.find((i) => i.id === body.like_image || i.name === body.like_image);
    if (!ref) throw notFound(`no image ${JSON.stringify(body.like_image)} in project ${project.url}`, 'like_image takes an image id or name of this project');
    score = (i) => cosine(ref.embedding, i.embedding);
  } else if (typeof body.prompt === 'string' && body.prompt.trim() !== '') {
    const { vector, known } = promptEmbedding(body.prompt, project.classes, background);
    if (known) score = (i) => cosine(vector, i.embedding);
  }
  const scores = new Map(images.map((i) => [i.id, score ? score(i) : 0]));
  images = [...images].sort((a, b) => scores.get(b.id)! - scores.get(a.id)! || b.created - a.created || a.id.localeCompare(b.id));
  const page = images.slice(offset, offset + limit);
  return { offset, total: images.length, results: page.map((i) => pick(i, fields, imageUrl, score ? scores.get(i.id)! : undefined)) };
}

function matches(i: ImageState, q: Record<string, unknown>): boolean {
  if (typeof q.tag === 'string' && !i.tags.includes(q.tag)) return false;
  if (typeof q.class_name === 'string' && !i.classes.includes(q.class_name)) return false;
  if (q.in_dataset !== undefined && q.in_dataset !== null) {
    // true / "true": the image is in the dataset (has a split); false / "false": it is not; any other
    // string: the image is in that split.
    const v = String(q.in_dataset).toLowerCase();
    if (v === 'true' && i.split === null) return false;
    if (v === 'false' && i.split !== null) return false;
    if (v !== 'true' && v !== 'false' && i.split !== q.in_dataset) return false;
  }
  if (q.batch === true && i.batch === null) return false;
  if (q.batch === false && i.batch !== null) return false;
  if (typeof q.batch_id === 'string' && i.batch !== q.batch_id) return false;
  return true;
}

function pick(i: ImageState, fields: string[], imageUrl: (image: ImageState) => string, score: number | undefined): Record<string, unknown> {
  const all: Record<string, unknown> = {
    id: i.id,
    name: i.name,
    created: i.created / 1000,
    split: i.split,
    tags: i.tags,
    owner: i.owner,
    labels: i.classes,
    annotations: { classes: Object.fromEntries(i.classes.map((c) => [c, 1])), width: i.width, height: i.height },
    embedding: i.embedding,
  };
  const out: Record<string, unknown> = {};
  for (const f of fields) out[f] = all[f];
  // Not one of the platform's fields: where to fetch the image, and the ranking score, for convenience.
  out.image_url = imageUrl(i);
  if (score !== undefined) out.score = Math.round(score * 1e6) / 1e6;
  return out;
}
