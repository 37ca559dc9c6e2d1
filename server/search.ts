// POST /{workspace}/{project}/search: filters, ranking by image or text similarity, fields, paging.
import { DEFAULT_SEARCH_FIELDS, SEARCH_EXTENSIONS, SEARCH_FIELDS } from '../src/platform/types.js';
import { cosine, promptEmbedding } from './embedding.js';
import { badRequest, checkFields, integerField, notFound, stringField } from './http.js';
import type { ImageState, ProjectState } from './store.js';

export const MAX_LIMIT = 250;
export const DEFAULT_LIMIT = 50;
/** The longest prompt, tag, class name, batch id or image reference taken. */
export const MAX_TEXT_LENGTH = 1000;

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
  checkFields(body, { in_dataset: 'string|boolean', batch: 'boolean', annotation_job: 'boolean', fields: 'string[]' });
  for (const field of ['prompt', 'like_image', 'tag', 'class_name', 'batch_id', 'annotation_job_id'] as const)
    stringField(body[field], field, MAX_TEXT_LENGTH);
  if (typeof body.in_dataset === 'string') stringField(body.in_dataset, 'in_dataset', MAX_TEXT_LENGTH);
  // Past the last safe integer a page would be empty anyway; bounded so that 1e30 is refused, not echoed.
  const offset = integerField(body.offset, 'offset', { min: 0, max: Number.MAX_SAFE_INTEGER }, 0);
  const limit = integerField(body.limit, 'limit', { min: 1, max: MAX_LIMIT }, DEFAULT_LIMIT);
  const fields = [...new Set((body.fields as string[] | undefined) ?? DEFAULT_SEARCH_FIELDS)];
  const unknown = fields.filter(
    (f) => !(SEARCH_FIELDS as readonly string[]).includes(f) && !(SEARCH_EXTENSIONS as readonly string[]).includes(f),
  );
  if (unknown.length)
    throw badRequest(
      `unknown fields: ${unknown.join(', ')}`,
      `fields may be ${SEARCH_FIELDS.join(', ')} (and, on the local platform, ${SEARCH_EXTENSIONS.join(', ')})`,
      'fields',
    );

  let images = project.images.filter((i) => matches(i, body));
  const background = project.classes.indexOf('background');
  let score: ((i: ImageState) => number) | null = null;
  if (typeof body.like_image === 'string') {
    const ref = project.images.find((i) => i.id === body.like_image || i.name === body.like_image);
    if (!ref)
      throw notFound(
        `no image ${JSON.stringify(body.like_image)} in project ${project.url}`,
        'like_image takes an image id or name of this project',
      );
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
  // A string or a boolean, as search() checked; anything else is no filter.
  if (typeof q.in_dataset === 'string' || typeof q.in_dataset === 'boolean') {
    // true / "true": the image is in the dataset (has a split); false / "false": it is not; any other
    // string: the image is in that split.
    const v = String(q.in_dataset).toLowerCase();
    if (v === 'true' && i.split === null) return false;
    if (v === 'false' && i.split !== null) return false;
    if (v !== 'true' && v !== 'false' && i.split !== q.in_dataset) return false;
  }
  // `batch: true` keeps the images in a batch; false is no filter, as on the platform: its Python SDK sends
  // `batch: false` with every search.
  if (q.batch === true && i.batch === null) return false;
  if (typeof q.batch_id === 'string' && i.batch !== q.batch_id) return false;
  // No image of the local platform is in an annotation job (it has none); `annotation_job: false` is no filter.
  if (q.annotation_job === true || typeof q.annotation_job_id === 'string') return false;
  return true;
}

/** Exactly the fields asked for: the platform's, and the local extensions only when named. */
function pick(
  i: ImageState,
  fields: string[],
  imageUrl: (image: ImageState) => string,
  score: number | undefined,
): Record<string, unknown> {
  const value = (field: string): unknown => {
    switch (field) {
      case 'id':
        return i.id;
      case 'name':
        return i.name;
      case 'created':
        return i.created / 1000;
      case 'split':
        return i.split;
      case 'tags':
        return i.tags;
      case 'owner':
        return i.owner;
      case 'labels':
        return i.classes;
      case 'annotations':
        return { classes: Object.fromEntries(i.classes.map((c) => [c, 1])), width: i.width, height: i.height };
      case 'embedding':
        return i.embedding;
      // The key-value metadata the platform's uploads attach; the local platform has no uploads.
      case 'user_metadata':
        return {};
      // Extensions: where to fetch the image (signed), and the ranking score (null when nothing ranks).
      case 'image_url':
        return imageUrl(i);
      case 'score':
        return score === undefined ? null : Math.round(score * 1e6) / 1e6;
      default:
        throw new Error(`unchecked search field ${field}`);
    }
  };
  return Object.fromEntries(fields.map((f) => [f, value(f)]));
}
