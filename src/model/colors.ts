// Class colours: the package's own where it has them, a fixed distinct palette otherwise.
import type { ModelSpec } from './types.js';

const PALETTE = [
  '#000000',
  '#e6194b',
  '#3cb44b',
  '#4363d8',
  '#ffe119',
  '#f58231',
  '#911eb4',
  '#46f0f0',
  '#f032e6',
  '#bcf60c',
  '#fabebe',
  '#008080',
  '#e6beff',
  '#9a6324',
  '#fffac8',
  '#800000',
  '#aaffc3',
  '#808000',
  '#ffd8b1',
  '#000075',
  '#808080',
];

/** One `#rrggbb` colour per class id; background black unless the package says otherwise. */
export function classColors(spec: Pick<ModelSpec, 'classNames' | 'colors' | 'backgroundClassId'>): string[] {
  return spec.classNames.map((name, id) => {
    const own = spec.colors[name];
    if (own && /^#[0-9a-f]{6}$/i.test(own)) return own.toLowerCase();
    if (id === spec.backgroundClassId) return '#000000';
    const i = id >= spec.backgroundClassId ? id : id + 1;
    return PALETTE[i % PALETTE.length] ?? '#ffffff';
  });
}
