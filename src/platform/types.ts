// The platform's answers, with the platform's own field names (see roboflow-python's test fixtures).

/** `GET /` — validates the key. */
export interface RootInfo {
  welcome: string;
  instructions: string;
  docs: string;
  /** The workspace the key belongs to (its URL slug). */
  workspace: string;
}

/** A project as the catalog routes list it. */
export interface ProjectRecord {
  /** `workspace/project`. */
  id: string;
  /** `semantic-segmentation`, `object-detection`, … */
  type: string;
  name: string;
  /** Unix seconds. */
  created: number;
  updated: number;
  images: number;
  unannotated: number;
  /** What the annotation group is called. */
  annotation: string;
  versions: number;
  public: boolean;
  splits: Record<string, number>;
  /** Class name → `#rrggbb`. */
  colors: Record<string, string>;
  /** Class name → number of annotations. */
  classes: Record<string, number>;
}

export interface WorkspaceRecord {
  name: string;
  /** The workspace's URL slug. */
  url: string;
  members: number;
}

/** The trained model of a version, when it has one. */
export interface VersionModel {
  /** `project/version`, the id the inference routes take. */
  id: string;
  /** The model's base URL on the inference route. */
  endpoint: string;
  /** `semantic-segmentation`, … */
  type: string;
  /** The architecture (`deeplabv3plus`, …). */
  modelType?: string;
  /** Where the exported model package lives (weights.onnx, environment.json, class_names.txt). */
  packageUrl?: string;
  /** Class names in class-id order. */
  classes?: string[];
}

export interface VersionRecord {
  /** `workspace/project/version`. */
  id: string;
  name: string;
  created: number;
  images: number;
  splits: Record<string, number>;
  /** True while the platform is still generating the version. */
  generating?: boolean;
  progress?: number;
  /** The platform's PREPROCESSING object (resize, auto-orient, static-crop, …). */
  preprocessing: Record<string, unknown>;
  augmentation: Record<string, unknown>;
  /** Export formats already generated. */
  exports: string[];
  /** The trained model; absent (or empty) when the version has none. */
  model?: VersionModel | Record<string, never>;
  classes?: string[];
}

export interface WorkspaceAnswer {
  workspace: WorkspaceRecord & { projects: ProjectRecord[] };
}

export interface ProjectAnswer {
  workspace: WorkspaceRecord;
  project: ProjectRecord;
  versions: VersionRecord[];
}

export interface VersionAnswer {
  workspace: WorkspaceRecord;
  project: ProjectRecord;
  version: VersionRecord;
}

/** `GET /{ws}/{project}/{version}/{format}`: a download link, or progress while the export is built. */
export type ExportAnswer = { export: { link: string; format?: string; size?: number } } | { ready: false; progress: number };

// The field names are spelled out as types (the public API names no internal constant), and each list
// is checked against its type both ways.
/** Fields a search can return. */
export type SearchField = 'id' | 'name' | 'annotations' | 'labels' | 'split' | 'tags' | 'owner' | 'embedding' | 'created' | 'user_metadata';
export const SEARCH_FIELDS = every<SearchField>()([
  'id',
  'name',
  'annotations',
  'labels',
  'split',
  'tags',
  'owner',
  'embedding',
  'created',
  'user_metadata',
]);
/** What a search returns when `fields` is not given. */
export type DefaultSearchField = 'id' | 'created';
export const DEFAULT_SEARCH_FIELDS = every<DefaultSearchField>()(['id', 'created']);
/**
 * Fields only the local platform (`edgeseg serve`) returns, and only when named in `fields`: `image_url`,
 * a signed URL of the image's bytes; `score`, the ranking similarity (null without `prompt`/`like_image`).
 */
export type SearchExtension = 'image_url' | 'score';
export const SEARCH_EXTENSIONS = every<SearchExtension>()(['image_url', 'score']);
export type SearchFieldName = SearchField | SearchExtension;

export interface SearchQuery<F extends SearchFieldName = SearchFieldName> {
  /** Rank by similarity to this text. */
  prompt?: string;
  /** Rank by similarity to this image (an image id of the project). */
  like_image?: string;
  /** Default 0. */
  offset?: number;
  /** 1–250, default 50. */
  limit?: number;
  tag?: string;
  class_name?: string;
  /** Documented as a string; the platform's own sample sends `true`. Sent as given. */
  in_dataset?: string | boolean;
  /** true: only images in a batch; false (what the platform's Python SDK sends by default) or absent: no filter. */
  batch?: boolean;
  batch_id?: string;
  /** true: only images in an annotation job; false or absent: no filter. The local platform has no annotation jobs. */
  annotation_job?: boolean;
  /** Only images in this annotation job. */
  annotation_job_id?: string;
  /** Default `["id", "created"]`. The local platform also takes the `SEARCH_EXTENSIONS`. */
  fields?: F[];
}

/** Every field a search result can carry, with its type. */
export interface SearchValues {
  id: string;
  name: string;
  /** Unix seconds. */
  created: number;
  /** train / valid / test; null when the image is not in the dataset. */
  split: string | null;
  tags: string[];
  owner: string;
  labels: string[];
  annotations: unknown;
  embedding: number[];
  /** The key-value metadata attached to the image at upload (empty on the local platform, which has no uploads). */
  user_metadata: Record<string, unknown>;
  /** Local platform extension: a signed URL of the image's bytes. */
  image_url: string;
  /** Local platform extension: the ranking similarity; null when nothing ranks. */
  score: number | null;
}

/** One image of a search page: exactly the fields asked for (`id` and `created` by default). */
export type SearchResult<F extends SearchFieldName = SearchFieldName> = Pick<SearchValues, F>;

export interface SearchPage<F extends SearchFieldName = SearchFieldName> {
  offset: number;
  total: number;
  results: SearchResult<F>[];
}

/** `GET /{workspace}/{project}/images/{id}`: one image's record. */
export interface ImageAnswer {
  image: {
    id: string;
    name: string;
    width: number;
    height: number;
    split: string | null;
    tags: string[];
    batch: string | null;
    /** Unix seconds. */
    created: number;
    owner: string;
    labels: string[];
    /** `original`: a signed URL of the image's bytes (it expires; ask again for a fresh one). */
    urls: { original: string };
  };
}

export interface SyntheticImageRequest {
  prompt: string;
  /** An image to describe first: a platform image id, a URL, base64, or bytes (sent as base64). */
  image?: string | Uint8Array | ArrayBuffer | Blob;
  /** Required with `image` (set to `base64` for bytes): `id`, `url` or `base64`. */
  image_type?: 'id' | 'url' | 'base64';
  /** The project the generated images are added to. */
  project_url?: string;
  /** Platform default `dall-e-3`. */
  model?: string;
  /** Platform default `natural`. */
  style?: 'natural' | 'vivid';
  /** Platform default `1024x1024`. */
  size?: string;
  /** Platform default `hd`. */
  quality?: 'standard' | 'hd';
  /** Platform default 1. */
  n?: number;
  force_caption_regenerate?: boolean;
  unmodified_prompt?: boolean;
}

export interface SyntheticImage {
  id: string;
  name: string;
  /** Where the generated image can be downloaded. */
  url: string;
  project?: string;
  created: number;
  width?: number;
  height?: number;
}

export interface SyntheticImageAnswer {
  /** The prompt the provider received. */
  prompt: string;
  /** The description of `image`, when one was given. */
  caption?: string;
  images: SyntheticImage[];
}

/** `GET /ort/{project}/{version}`: where the platform's own inference server downloads a model. */
export interface OrtAnswer {
  ort: {
    classes: string[];
    /** URL of weights.onnx. */
    model: string;
    /** URL of environment.json (legacy export layout). */
    environment?: string;
    /** URL of inference_config.json (current export layout; an extension of the local platform). */
    inference_config?: string;
    colors?: Record<string, string>;
    modelType?: string;
  };
}

/** A list of every member of `T` (a type error where one is missing or foreign). */
function every<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : never)): L => list;
}
