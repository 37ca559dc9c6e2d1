// The platform panels: key check, catalog (workspace → project → version → export link), search (with
// filters and paging through searchAll), synthetic images.
import type { PlatformClient, SearchQuery, SearchResult } from 'edgeseg';
import { webHref } from './safe-link.js';
import { describeError, onAsync } from './status.js';
import { escapeHtml } from './viewer.js';

export interface PanelContext {
  platform: () => PlatformClient;
  workspace: () => string;
  project: string;
  /** Segment an image of the platform (from search results). */
  openImage: (url: string, id: string) => void;
  classNames: () => string[];
}

const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

function showResult(el: HTMLElement, text: string, isError = false): void {
  el.textContent = text;
  el.classList.toggle('error', isError);
}

export function setUpTabs(): void {
  const tabs = [...document.querySelectorAll<HTMLButtonElement>('[role=tab]')];
  const select = (tab: HTMLButtonElement) => {
    for (const t of tabs) {
      const on = t === tab;
      t.setAttribute('aria-selected', String(on));
      t.tabIndex = on ? 0 : -1;
      $(`#${t.getAttribute('aria-controls')}`).hidden = !on;
    }
  };
  for (const [i, tab] of tabs.entries()) {
    tab.tabIndex = i === 0 ? 0 : -1;
    tab.addEventListener('click', () => select(tab));
    tab.addEventListener('keydown', (e) => {
      const next =
        e.key === 'ArrowRight' ? tabs[(i + 1) % tabs.length] : e.key === 'ArrowLeft' ? tabs[(i - 1 + tabs.length) % tabs.length] : null;
      if (next) {
        select(next);
        next.focus();
      }
    });
  }
}

export function setUpKeyPanel(ctx: PanelContext, onChange: (baseUrl: string, apiKey: string) => void): void {
  const out = $('#key-result');
  $('#key-form').addEventListener(
    'submit',
    // onChange throws on settings that no client takes (an empty key): shown here like a refused key.
    onAsync(
      async (e: SubmitEvent) => {
        e.preventDefault();
        onChange($<HTMLInputElement>('#base-url').value.trim(), $<HTMLInputElement>('#api-key').value.trim());
        const info = await ctx.platform().root();
        showResult(out, `✓ ${info.instructions}\nworkspace: ${info.workspace}`);
      },
      (error) => showResult(out, describeError(error), true),
    ),
  );
}

export function setUpCatalog(ctx: PanelContext): void {
  const projects = $('#cat-projects');
  const versions = $('#cat-versions');
  const detail = $('#cat-detail');
  const current = (list: HTMLElement, button: HTMLButtonElement) => {
    for (const b of list.querySelectorAll('button')) b.removeAttribute('aria-current');
    button.setAttribute('aria-current', 'true');
  };
  const inDetail = (error: unknown) => (detail.textContent = describeError(error));
  $('#cat-load').addEventListener(
    'click',
    onAsync(async () => {
      projects.replaceChildren();
      versions.replaceChildren();
      detail.textContent = 'Loading…';
      const ws = $<HTMLInputElement>('#cat-workspace').value.trim();
      const answer = await ctx.platform().workspace(ws);
      detail.textContent = `${answer.workspace.name}: ${answer.workspace.projects.length} project(s)`;
      for (const p of answer.workspace.projects) {
        const button = document.createElement('button');
        button.textContent = `${p.name} · ${p.type} · ${p.images} images`;
        button.addEventListener(
          'click',
          onAsync(async () => {
            current(projects, button);
            const slug = p.id.split('/')[1]!;
            const { versions: list, project } = await ctx.platform().project(ws, slug);
            detail.innerHTML = `<b>${escapeHtml(project.name)}</b><br>classes: ${escapeHtml(
              Object.entries(project.classes)
                .map(([c, n]) => `${c} (${n})`)
                .join(', '),
            )}<br>splits: ${escapeHtml(JSON.stringify(project.splits))}`;
            versions.replaceChildren(
              ...list.map((v) => {
                const li = document.createElement('li');
                const vb = document.createElement('button');
                const n = v.id.split('/').pop()!;
                vb.textContent = `v${n} ${v.name}${v.model && 'endpoint' in v.model ? ' · model' : ''}`;
                vb.addEventListener(
                  'click',
                  onAsync(() => showVersion(ctx, ws, slug, n, vb), inDetail),
                );
                li.append(vb);
                return li;
              }),
            );
          }, inDetail),
        );
        const li = document.createElement('li');
        li.append(button);
        projects.append(li);
      }
    }, inDetail),
  );

  async function showVersion(c: PanelContext, ws: string, project: string, n: string, button: HTMLButtonElement) {
    current(versions, button);
    detail.textContent = 'Loading…';
    const { version } = await c.platform().version(ws, project, n);
    const model = version.model && 'endpoint' in version.model ? version.model : null;
    detail.innerHTML = `<b>${escapeHtml(version.id)}</b> — ${version.images} images, splits ${escapeHtml(JSON.stringify(version.splits))}<br>model: ${model ? `${escapeHtml(model.modelType ?? model.type)} at <code>${escapeHtml(model.endpoint)}</code>` : 'none'}<br><br>`;
    for (const format of ['png-mask-semantic', 'coco-segmentation']) {
      const b = document.createElement('button');
      b.textContent = `Export ${format}`;
      b.addEventListener(
        'click',
        onAsync(
          async () => {
            b.disabled = true;
            const answer = await c.platform().exportFormat(ws, project, n, format);
            const a = document.createElement('a');
            if ('export' in answer) {
              const href = webHref(answer.export.link, location.href);
              if (href === null) {
                b.textContent = `the platform answered a link that is not http(s): not followed`;
                return;
              }
              a.href = href;
              a.textContent = `download ${format}.zip`;
              b.replaceWith(a);
            }
          },
          (error) => (b.textContent = describeError(error)),
        ),
      );
      detail.append(b, ' ');
    }
  }
}

export function setUpSearch(ctx: PanelContext): { search: (query: SearchQuery) => void } {
  const results = $('#search-results');
  const summary = $('#search-summary');
  const more = $<HTMLButtonElement>('#search-more');
  let pages: AsyncGenerator<{ offset: number; total: number; results: Shown[] }, void> | null = null;

  const classSelect = $<HTMLSelectElement>('#s-class');
  const fillClasses = () => {
    if (classSelect.options.length > 1) return;
    for (const c of ctx.classNames().filter((n) => n !== 'background')) classSelect.append(new Option(c, c));
  };

  const nextPage = async () => {
    if (!pages) return;
    more.disabled = true;
    try {
      const { value, done } = await pages.next();
      if (done || !value) {
        more.hidden = true;
        return;
      }
      const shown = results.children.length + value.results.length;
      summary.textContent = `${value.total} image(s) match; showing ${shown}`;
      for (const r of value.results) results.append(thumbnail(r, ctx));
      more.hidden = shown >= value.total;
    } catch (error) {
      summary.textContent = describeError(error);
      more.hidden = true;
    } finally {
      more.disabled = false;
    }
  };

  const search = (query: SearchQuery) => {
    fillClasses();
    results.replaceChildren();
    summary.textContent = 'Searching…';
    pages = ctx.platform().searchAll(ctx.workspace(), ctx.project, { ...query, fields: ['id', 'name', 'tags', 'score'] });
    void nextPage();
  };

  $('#search-form').addEventListener('submit', (e) => {
    e.preventDefault();
    const value = (id: string) => $<HTMLInputElement>(id).value.trim() || undefined;
    const inDataset = value('#s-in');
    const query: SearchQuery = {
      ...(value('#s-prompt') ? { prompt: value('#s-prompt')! } : {}),
      ...(value('#s-like') ? { like_image: value('#s-like')! } : {}),
      ...(value('#s-tag') ? { tag: value('#s-tag')! } : {}),
      ...(value('#s-class') ? { class_name: value('#s-class')! } : {}),
      ...(value('#s-batch') ? { batch_id: value('#s-batch')! } : {}),
      ...(inDataset ? { in_dataset: inDataset === 'true' ? true : inDataset === 'false' ? false : inDataset } : {}),
      limit: Math.min(250, Math.max(1, Number(value('#s-limit') ?? 12))),
    };
    search(query);
  });
  more.addEventListener('click', () => void nextPage());
  classSelect.addEventListener('focus', fillClasses);
  return { search };
}

type Shown = Partial<SearchResult<'name' | 'tags' | 'score'>> & { id: string };

/** A signed URL of a platform image's bytes, from the image route (search results carry none). */
export async function imageUrlOf(ctx: Pick<PanelContext, 'platform' | 'workspace' | 'project'>, id: string): Promise<string> {
  return (await ctx.platform().image(ctx.workspace(), ctx.project, id)).image.urls.original;
}

/** `url` where it is known already (a generated image), else asked of the image route. */
function thumbnail(r: Shown, ctx: PanelContext, known?: string): HTMLElement {
  const url = known === undefined ? imageUrlOf(ctx, r.id) : Promise.resolve(known);
  const button = document.createElement('button');
  button.type = 'button';
  button.title = `${r.name ?? r.id}${Array.isArray(r.tags) ? ` — ${r.tags.join(', ')}` : ''}${typeof r.score === 'number' ? ` — score ${r.score.toFixed(3)}` : ''}`;
  button.setAttribute('role', 'listitem');
  button.dataset.id = r.id;
  const img = document.createElement('img');
  img.alt = String(r.name ?? r.id);
  img.loading = 'lazy';
  img.crossOrigin = 'anonymous';
  void url.then(
    (u) => (img.src = u),
    () => (img.alt = `${img.alt} (unavailable)`),
  );
  button.append(img);
  button.addEventListener(
    'click',
    onAsync(async () => ctx.openImage(await url, r.id)),
  );
  return button;
}

export function setUpSynthetic(ctx: PanelContext): void {
  const out = $('#synthetic-result');
  $('#synthetic-form').addEventListener(
    'submit',
    onAsync(
      async (e: SubmitEvent) => {
        e.preventDefault();
        const v = (id: string) => $<HTMLInputElement>(id).value.trim();
        // Only what the user gave is sent: the platform applies its own defaults.
        const request = {
          prompt: v('#g-prompt'),
          project_url: ctx.project,
          ...(v('#g-image') ? { image: v('#g-image'), image_type: 'id' as const } : {}),
          ...(v('#g-model') ? { model: v('#g-model') } : {}),
          ...(v('#g-style') ? { style: v('#g-style') as 'natural' | 'vivid' } : {}),
          ...(v('#g-size') ? { size: v('#g-size') } : {}),
          ...(v('#g-quality') ? { quality: v('#g-quality') as 'standard' | 'hd' } : {}),
          ...(v('#g-n') ? { n: Number(v('#g-n')) } : {}),
          ...($<HTMLInputElement>('#g-unmodified').checked ? { unmodified_prompt: true } : {}),
        };
        showResult(out, 'Generating…');
        const answer = await ctx.platform().generateSyntheticImage(request);
        out.classList.remove('error');
        out.replaceChildren(
          document.createTextNode(`prompt sent: ${answer.prompt}\n`),
          ...answer.images.map((i) => thumbnail({ id: i.id, name: i.name }, ctx, i.url)),
        );
      },
      (error) => showResult(out, describeError(error), true),
    ),
  );
}
