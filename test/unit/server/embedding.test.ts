import { describe, expect, test } from 'vitest';
import { COLOR_BINS, imageEmbedding, promptEmbedding } from '../../../server/embedding.js';
import { search } from '../../../server/search.js';
import type { ImageState, ProjectState } from '../../../server/store.js';

const RED = [230, 30, 30];
const BLUE = [40, 60, 230];
const WHITE = [250, 250, 250];

describe('imageEmbedding, as the README documents it', () => {
  test('sqrt of class shares of the labelled pixels, then 0.5 × sqrt of their 27-bin colour histogram, normalised', () => {
    // 2×2: two red circle pixels, one blue rectangle pixel, one white background pixel.
    const rgb = new Uint8Array([...RED, ...RED, ...BLUE, ...WHITE]);
    const mask = new Uint8Array([1, 1, 2, 0]);
    const v = imageEmbedding(rgb, mask, 3, 0);
    // Bins are (r·3 + g)·3 + b with 3 levels a channel: red (2,0,0) is 18, blue (0,0,2) is 2. White (bin 26)
    // is background, so it is not in the histogram.
    const expected = new Array<number>(2 + COLOR_BINS).fill(0);
    expected[0] = Math.sqrt(2 / 3);
    expected[1] = Math.sqrt(1 / 3);
    expected[2 + 18] = 0.5 * Math.sqrt(2 / 3);
    expected[2 + 2] = 0.5 * Math.sqrt(1 / 3);
    // |v|² = 2/3 + 1/3 + 0.25·(2/3 + 1/3) = 1.25.
    const norm = Math.sqrt(1.25);
    expect(v).toHaveLength(29);
    v.forEach((x, i) => expect(x, `dimension ${i}`).toBeCloseTo(expected[i]! / norm, 12));
  });

  test('with nothing labelled: no class part, the histogram of every pixel', () => {
    const rgb = new Uint8Array([...RED, ...WHITE, ...WHITE, ...WHITE]);
    const v = imageEmbedding(rgb, new Uint8Array(4), 3, 0);
    const expected = new Array<number>(2 + COLOR_BINS).fill(0);
    expected[2 + 18] = 0.5 * Math.sqrt(1 / 4);
    expected[2 + 26] = 0.5 * Math.sqrt(3 / 4);
    const norm = 0.5;
    v.forEach((x, i) => expect(x, `dimension ${i}`).toBeCloseTo(expected[i]! / norm, 12));
  });
});

describe('prompt ranking', () => {
  const classes = ['background', 'circle', 'star'];
  const image = (id: string, created: number, embedding: number[]): ImageState => ({
    id,
    name: `${id}.jpg`,
    file: `${id}.jpg`,
    width: 2,
    height: 2,
    split: 'train',
    tags: [],
    batch: null,
    created,
    owner: 'test',
    classes: [],
    embedding,
  });
  const dims = (circle: number, star: number) => [circle, star, ...new Array<number>(COLOR_BINS).fill(0)];
  // Created out of order, and the oldest is the most star-like: only the fallback can put it last.
  const project: ProjectState = {
    url: 'p',
    name: 'P',
    type: 'semantic-segmentation',
    created: 0,
    updated: 0,
    annotation: 'shapes',
    classes,
    colors: {},
    versions: [],
    images: [image('middle', 2000, dims(1, 0)), image('oldest', 1000, dims(0, 1)), image('newest', 3000, dims(0.6, 0.8))],
  };
  const url = (i: ImageState) => `/files/${i.id}`;

  test('a prompt with only unknown words names nothing: newest first, no score', () => {
    expect(promptEmbedding('zebra crossing at dawn', classes, 0).known).toBe(false);
    const answer = search(project, { prompt: 'zebra crossing at dawn', fields: ['id', 'image_url', 'score'] }, url);
    expect(answer.results).toEqual([
      { id: 'newest', image_url: '/files/newest', score: null },
      { id: 'middle', image_url: '/files/middle', score: null },
      { id: 'oldest', image_url: '/files/oldest', score: null },
    ]);
    // Without the extensions named, only the fields asked for.
    expect(search(project, { prompt: 'zebra crossing at dawn', fields: ['id'] }, url).results).toEqual([
      { id: 'newest' },
      { id: 'middle' },
      { id: 'oldest' },
    ]);
  });

  test('a known word ranks by cosine similarity instead, whatever the age', () => {
    const answer = search(project, { prompt: 'zebra with stars', fields: ['id', 'score'] }, url);
    expect(answer.results.map((r) => [r.id, r.score])).toEqual([
      ['oldest', 1],
      ['newest', 0.8],
      ['middle', 0],
    ]);
  });
});
