// The project and version picker: the platform's projects and their versions that have a model (catalog
// routes), or, from a static build with no platform, the model packages bundled with the page.
import type { PlatformClient } from 'edgeseg';

export interface ModelChoice {
  project: string;
  version: number;
  /** What the picker shows for the version. */
  label: string;
  /** A bundled package's folder URL; absent for a platform version. */
  packageUrl?: string;
}

/** The page opens on this one where it is offered (the people model), else on the first offered. */
export const DEFAULT_CHOICE = { project: 'people', version: 1 } as const;

/** The versions with a trained model in each project of `workspace`, in the catalog's order. */
export async function platformModels(platform: PlatformClient, workspace: string, signal?: AbortSignal): Promise<ModelChoice[]> {
  const { workspace: ws } = await platform.workspace(workspace, signal ? { signal } : {});
  const perProject = await Promise.all(
    ws.projects.map(async (p) => {
      const slug = p.id.split('/').pop()!;
      const { versions } = await platform.project(workspace, slug, signal ? { signal } : {});
      return versions
        .filter((v) => v.model && 'endpoint' in v.model)
        .map((v) => ({ project: slug, version: Number(v.id.split('/').pop()), label: v.name }));
    }),
  );
  return perProject.flat();
}

/** One entry of `models/index.json`, written by the static build (vite.config.ts). */
export interface BundledModel {
  name: string;
  project: string;
  version: number;
  /** The package's folder, relative to the page. */
  path: string;
}

/** The packages bundled with a static build; null where the page has none (the dev server). */
export async function bundledModels(pageUrl: string): Promise<ModelChoice[] | null> {
  const url = new URL('./models/index.json', pageUrl);
  const response = await fetch(url).catch(() => null);
  // A dev server answers unknown paths with the page itself: only real JSON counts.
  if (!response?.ok || !(response.headers.get('content-type') ?? '').includes('json')) return null;
  const models = (await response.json()) as BundledModel[];
  return models.map((m) => ({
    project: m.project,
    version: m.version,
    label: `${m.name} (bundled)`,
    packageUrl: new URL(m.path, url).href,
  }));
}

/** Two selects, project then version; `onPick` runs when the user picks another model. */
export class ModelPicker {
  #choices: ModelChoice[] = [];
  #current: ModelChoice | null = null;

  constructor(
    private readonly projectSelect: HTMLSelectElement,
    private readonly versionSelect: HTMLSelectElement,
    onPick: (choice: ModelChoice) => void,
  ) {
    projectSelect.addEventListener('change', () => {
      this.#fillVersions(projectSelect.value);
      onPick(this.#select());
    });
    versionSelect.addEventListener('change', () => onPick(this.#select()));
  }

  get current(): ModelChoice | null {
    return this.#current;
  }

  /** Offers `choices` and selects the default (people, version 1) where offered, else the first. */
  offer(choices: ModelChoice[]): ModelChoice | null {
    this.#choices = choices;
    const initial = choices.find((c) => c.project === DEFAULT_CHOICE.project && c.version === DEFAULT_CHOICE.version) ?? choices[0] ?? null;
    const projects = [...new Set(choices.map((c) => c.project))];
    this.projectSelect.replaceChildren(...projects.map((p) => new Option(p, p)));
    this.projectSelect.disabled = this.versionSelect.disabled = choices.length === 0;
    if (!initial) return (this.#current = null);
    this.projectSelect.value = initial.project;
    this.#fillVersions(initial.project);
    this.versionSelect.value = String(initial.version);
    return this.#select();
  }

  #fillVersions(project: string): void {
    this.versionSelect.replaceChildren(
      ...this.#choices.filter((c) => c.project === project).map((c) => new Option(`v${c.version} · ${c.label}`, String(c.version))),
    );
  }

  #select(): ModelChoice {
    const version = Number(this.versionSelect.value);
    this.#current = this.#choices.find((c) => c.project === this.projectSelect.value && c.version === version)!;
    return this.#current;
  }
}
