// The platform's record shapes (see roboflow-python's test fixtures), built from the store's state.
import type { ProjectState, VersionState, WorkspaceState } from './store.js';

export interface Urls {
  /** The platform's base URL as the client reached it. */
  base: string;
  /** The hosted inference route. */
  inference: string;
}

const seconds = (ms: number) => ms / 1000;

export function splitsOf(images: { split: string | null }[]): Record<string, number> {
  const splits: Record<string, number> = { train: 0, valid: 0, test: 0 };
  for (const i of images) if (i.split) splits[i.split] = (splits[i.split] ?? 0) + 1;
  return splits;
}

export function workspaceRecord(ws: WorkspaceState) {
  return { name: ws.name, url: ws.url, members: 1 };
}

export function projectRecord(ws: WorkspaceState, p: ProjectState) {
  const classes: Record<string, number> = {};
  for (const name of p.classes) if (name !== 'background') classes[name] = 0;
  for (const image of p.images) for (const c of image.classes) classes[c] = (classes[c] ?? 0) + 1;
  return {
    id: `${ws.url}/${p.url}`,
    type: p.type,
    name: p.name,
    created: seconds(p.created),
    updated: seconds(p.updated),
    images: p.images.length,
    unannotated: p.images.filter((i) => !i.mask).length,
    annotation: p.annotation,
    versions: p.versions.length,
    public: false,
    splits: splitsOf(p.images.filter((i) => i.split)),
    colors: p.colors,
    classes,
  };
}

/** `packageUrl`: the model package's signed folder URL (see the handler). */
export function versionRecord(ws: WorkspaceState, p: ProjectState, v: VersionState, urls: Urls, exports: string[], packageUrl: string) {
  const images = p.images.filter((i) => v.images.includes(i.id));
  return {
    id: `${ws.url}/${p.url}/${v.number}`,
    name: v.name,
    created: seconds(v.created),
    images: images.length,
    splits: splitsOf(images),
    generating: false,
    progress: 1,
    preprocessing: v.preprocessing,
    augmentation: v.augmentation,
    exports,
    // The trained model, where the version has one: its inference endpoint and its exported package.
    model: v.model
      ? {
          id: `${p.url}/${v.number}`,
          endpoint: `${urls.inference}/${p.url}/${v.number}`,
          type: p.type,
          modelType: v.model.modelType,
          packageUrl,
          classes: p.classes,
        }
      : {},
    classes: p.classes,
  };
}

/**
 * The model type as the platform names it in its trainings: with the task as a token (`yolo26-sem`), from which
 * the platform's Python SDK picks the inference host and how to read the answer. A semantic-segmentation
 * model whose type lacks the token (`edgeseg-shapes`) gets `-sem` added, or the SDK would send its images to the
 * object-detection host and look for boxes in the answer.
 */
export function trainedModelType(p: ProjectState, v: VersionState): string {
  const type = v.model?.modelType ?? '';
  return p.type === 'semantic-segmentation' && !/(^|[^a-z])sem([^a-z]|$)/i.test(type) ? `${type}-sem` : type;
}

/**
 * A version's training as the platform's v2 trainings routes list it: the one finished run of a version with a
 * model, which produced one model addressed as `{project}/{version}` (the form the platform gives a version's
 * own model, and the path of this server's inference route below `/infer`).
 */
export function trainingRecord(p: ProjectState, v: VersionState) {
  return {
    trainingId: `${p.url}-${v.number}`,
    status: 'finished',
    modelType: trainedModelType(p, v),
    modelIds: [`${p.url}/${v.number}`],
    start: seconds(v.created),
  };
}
