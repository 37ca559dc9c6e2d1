// The platform's answers, with the platform's own field names (see roboflow-python's test fixtures).

/** `GET /` — validates the key. */
export interface RootInfo {
  /** A greeting from the platform. */
  welcome: string;
  /** What the platform says next (that the key authenticated, say). */
  instructions: string;
  /** Where the platform's documentation is. */
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
  /** The project's display name. */
  name: string;
  /** Unix seconds. */
  created: number;
  /** When the project last changed, in Unix seconds. */
  updated: number;
  /** How many images the project holds. */
  images: number;
  /** How many of them have no annotation. */
  unannotated: number;
  /** What the annotation group is called. */
  annotation: string;
  /** How many versions the project has. */
  versions: number;
  /** Whether the project is public: visible outside its workspace. */
  public: boolean;
  /** Split name (`train`, `valid`, `test`) → number of images in it. */
  splits: Record<string, number>;
  /** Class name → `#rrggbb`. */
  colors: Record<string, string>;
  /** Class name → number of annotations. */
  classes: Record<string, number>;
}

/** A workspace as the catalog routes give it: the team's space, which holds its projects. */
export interface WorkspaceRecord {
  /** The workspace's display name. */
  name: string;
  /** The workspace's URL slug: what the routes take as `workspace`. */
  url: string;
  /** How many people belong to it. */
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

/** A version: a frozen copy of a project's dataset, with its preprocessing, its exports and, once trained, its model. */
export interface VersionRecord {
  /** `workspace/project/version`. */
  id: string;
  /** The version's display name. */
  name: string;
  /** Unix seconds. */
  created: number;
  /** How many images the version holds. */
  images: number;
  /** Split name (`train`, `valid`, `test`) → number of images in it. */
  splits: Record<string, number>;
  /** True while the platform is still generating the version. */
  generating?: boolean;
  /** How far the generation is, 0 to 1. */
  progress?: number;
  /** The platform's PREPROCESSING object (resize, auto-orient, static-crop, …). */
  preprocessing: Record<string, unknown>;
  /** The augmentations the version was generated with (flip, rotate, …), as the platform writes them. */
  augmentation: Record<string, unknown>;
  /** Export formats already generated. */
  exports: string[];
  /** The trained model; absent (or empty) when the version has none. */
  model?: VersionModel | Record<string, never>;
  /** Class names in class-id order, where the platform gives them. */
  classes?: string[];
}

/** `GET /{workspace}`: the workspace and its projects. */
export interface WorkspaceAnswer {
  /** The workspace, with the record of each of its projects. */
  workspace: WorkspaceRecord & {
    /** Every project of the workspace. */
    projects: ProjectRecord[];
  };
}

/** `GET /{workspace}/{project}`: the project, its workspace and its versions. */
export interface ProjectAnswer {
  /** The workspace that holds the project. */
  workspace: WorkspaceRecord;
  /** The project. */
  project: ProjectRecord;
  /** Each version of the project. */
  versions: VersionRecord[];
}

/** `GET /{workspace}/{project}/{version}`: the version, with its project and workspace. */
export interface VersionAnswer {
  /** The workspace that holds the project. */
  workspace: WorkspaceRecord;
  /** The project that holds the version. */
  project: ProjectRecord;
  /** The version, its trained model among its fields. */
  version: VersionRecord;
}

/** `GET /{ws}/{project}/{version}/{format}`: a download link, or progress while the export is built. */
export type ExportAnswer =
  | {
      /** The export is ready. */
      export: {
        /** Where to download it (a zip). */
        link: string;
        /** The format asked for. */
        format?: string;
        /** Its size in bytes, where the platform says. */
        size?: number;
      };
    }
  | {
      /** The export is still being built: ask again. */
      ready: false;
      /** How far it is, 0 to 1. */
      progress: number;
    };

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
/** Any field a search may be asked for (`fields`): the platform's, and the local platform's extensions. */
export type SearchFieldName = SearchField | SearchExtension;

/**
 * A search of a project's images (`POST /{workspace}/{project}/search`), in the platform's field names.
 * Filters combine (every one given must hold); `prompt` or `like_image` ranks what passes.
 */
export interface SearchQuery<F extends SearchFieldName = SearchFieldName> {
  /** Rank by similarity to this text. */
  prompt?: string;
  /** Rank by similarity to this image (an image id of the project). */
  like_image?: string;
  /**
   * Where the page starts, in results.
   * @default 0
   */
  offset?: number;
  /**
   * Results a page, 1–250.
   * @default 50
   */
  limit?: number;
  /** Only images with this tag. */
  tag?: string;
  /** Only images annotated with this class. */
  class_name?: string;
  /** Documented as a string; the platform's own sample sends `true`. Sent as given. */
  in_dataset?: string | boolean;
  /** `true`: only images uploaded in a batch; `false` (what the platform's Python SDK sends by default) or absent: no filter. */
  batch?: boolean;
  /** Only images of this upload batch. */
  batch_id?: string;
  /** `true`: only images in an annotation job; `false` or absent: no filter. The local platform has no annotation jobs. */
  annotation_job?: boolean;
  /** Only images in this annotation job. */
  annotation_job_id?: string;
  /**
   * The fields each result carries. The local platform also takes the extensions (`SearchExtension`).
   * @default ['id', 'created']
   */
  fields?: F[];
}

/** Every field a search result can carry, with its type. */
export interface SearchValues {
  /** The image's id in the project. */
  id: string;
  /** Its file name. */
  name: string;
  /** Unix seconds. */
  created: number;
  /** train / valid / test; null when the image is not in the dataset. */
  split: string | null;
  /** Its tags. */
  tags: string[];
  /** Who uploaded it. */
  owner: string;
  /** The classes annotated on it. */
  labels: string[];
  /** Its annotation, in the platform's own form (which differs by project type). */
  annotations: unknown;
  /** The image's embedding, the vector that `prompt` and `like_image` rank by. */
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

/** One page of a search's results. */
export interface SearchPage<F extends SearchFieldName = SearchFieldName> {
  /** Where this page starts, in results. */
  offset: number;
  /** How many results the search has in all. */
  total: number;
  /** This page's images, each with the fields asked for. */
  results: SearchResult<F>[];
}

/** `GET /{workspace}/{project}/images/{id}`: one image's record. */
export interface ImageAnswer {
  /** The image's record. */
  image: {
    /** The image's id in the project. */
    id: string;
    /** Its file name. */
    name: string;
    /** In pixels. */
    width: number;
    /** In pixels. */
    height: number;
    /** train / valid / test; null when the image is not in the dataset. */
    split: string | null;
    /** Its tags. */
    tags: string[];
    /** The upload batch it came in; null when none. */
    batch: string | null;
    /** Unix seconds. */
    created: number;
    /** Who uploaded it. */
    owner: string;
    /** The classes annotated on it. */
    labels: string[];
    /** Where its bytes are. */
    urls: {
      /** A signed URL of the image's bytes (it expires; ask again for a fresh one). */
      original: string;
    };
  };
}

/**
 * A request for synthetic images (`POST /synthetic-image`), in the platform's field names. Only the fields
 * given are sent: the defaults below are the platform's, applied by it.
 */
export interface SyntheticImageRequest {
  /** What to generate. */
  prompt: string;
  /** An image to describe first: a platform image id, a URL, base64, or bytes (sent as base64). */
  image?: string | Uint8Array | ArrayBuffer | Blob;
  /** Required with `image` (set to `base64` for bytes): `id`, `url` or `base64`. */
  image_type?: 'id' | 'url' | 'base64';
  /** The project the generated images are added to. */
  project_url?: string;
  /**
   * The provider's image model.
   * @default 'dall-e-3' (the platform's)
   */
  model?: string;
  /**
   * The provider's style.
   * @default 'natural' (the platform's)
   */
  style?: 'natural' | 'vivid';
  /**
   * `WIDTHxHEIGHT`, as the provider's model takes it.
   * @default '1024x1024' (the platform's)
   */
  size?: string;
  /**
   * The provider's quality.
   * @default 'hd' (the platform's)
   */
  quality?: 'standard' | 'hd';
  /**
   * How many images, a whole number 1–10 (the provider's model may allow fewer).
   * @default 1 (the platform's)
   */
  n?: number;
  /** Describe `image` again rather than reuse the description the platform keeps for it. */
  force_caption_regenerate?: boolean;
  /** Send `prompt` as it is, without the image's description and the platform's photorealism keywords. */
  unmodified_prompt?: boolean;
}

/** One generated image, stored in the project. */
export interface SyntheticImage {
  /** Its id in the project. */
  id: string;
  /** Its file name. */
  name: string;
  /** Where the generated image can be downloaded. */
  url: string;
  /** The project it was added to. */
  project?: string;
  /** Unix seconds. */
  created: number;
  /** In pixels, where the platform says. */
  width?: number;
  /** In pixels, where the platform says. */
  height?: number;
}

/** What `POST /synthetic-image` answers. */
export interface SyntheticImageAnswer {
  /** The prompt the provider received. */
  prompt: string;
  /** The description of `image`, when one was given. */
  caption?: string;
  /** The generated images. */
  images: SyntheticImage[];
}

/** `GET /ort/{project}/{version}`: where the platform's own inference server downloads a model. */
export interface OrtAnswer {
  /** The model package's files and classes. */
  ort: {
    /** Class names in class-id order. */
    classes: string[];
    /** URL of weights.onnx. */
    model: string;
    /** URL of environment.json (legacy export layout). */
    environment?: string;
    /** URL of inference_config.json (current export layout; an extension of the local platform). */
    inference_config?: string;
    /** Class name → `#rrggbb`. */
    colors?: Record<string, string>;
    /** The architecture (`deeplabv3plus`, …), where the platform says. */
    modelType?: string;
  };
}

/** A list of every member of `T` (a type error where one is missing or foreign). */
function every<T extends string>() {
  return <const L extends readonly T[]>(list: L & ([T] extends [L[number]] ? unknown : never)): L => list;
}
