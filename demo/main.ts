// The edgeseg demo: segments images in this page with the runtime, beside the platform's hosted route.
import {
  base64ToBytes,
  classColors,
  createSegmenter,
  PlatformClient,
  rawFromPayload,
  type RawSegmentation,
  type RuntimeBackendName,
  type SegmentationPayload,
  type Segmenter,
  createCompositor,
  type AlphaMask,
  type Compositor,
  type CompositorChoice,
  type EffectMask,
  type FrameSource,
  createVideoEffect,
  type Effect,
  type VideoEffect,
  type VideoEffectSettings,
} from 'edgeseg';
import { EffectControls } from './effects/effect-controls.js';
import { bundledModels, ModelPicker, platformModels, type ModelChoice } from './model-picker.js';
import { imageUrlOf, setUpCatalog, setUpKeyPanel, setUpSearch, setUpSynthetic, setUpTabs } from './platform-panels.js';
import { describeError, onAsync, showError, status } from './status.js';
import { escapeHtml, paintClassIds, Viewer, type ShownResult } from './viewer.js';

const WORKSPACE = 'edgeseg-demo';
const $ = <T extends HTMLElement>(selector: string) => document.querySelector<T>(selector)!;

// Settings: the local platform on this origin by default, with the key it hands this origin's pages;
// stored when changed.
const settings = {
  baseUrl: localStorage.getItem('edgeseg.baseUrl') ?? `${location.origin}/api`,
  apiKey: localStorage.getItem('edgeseg.apiKey') ?? (await localPlatformKey()),
};

/** The key of the local platform that `npm start` mounts at /api; a placeholder where none answers (a static build). */
async function localPlatformKey(): Promise<string> {
  try {
    const answer = await fetch('/api/local-key');
    if (answer.ok) return ((await answer.json()) as { apiKey: string }).apiKey;
  } catch {
    // No platform here: the page still segments with the bundled model.
  }
  return 'no-local-platform';
}
let platform = makePlatform(settings);
/** Throws on settings no client takes (an empty key). */
function makePlatform({ baseUrl, apiKey }: typeof settings): PlatformClient {
  return new PlatformClient({ apiKey, baseUrl, inferenceUrl: `${baseUrl}/infer` });
}

const viewer = new Viewer();
let segmenter: Segmenter | null = null;
let starting: Promise<Segmenter | null> | null = null;
/** The image on screen, kept to re-run when the confidence or backend changes. */
let current: { blob: Blob; bitmap: ImageBitmap; id?: string } | null = null;
let lastPayload: SegmentationPayload | null = null;
let runId = 0;
/** The camera mode: the camera's stream, the library's video effect on it, and the counter that reads its stats. */
let live: { stream: MediaStream; fx: VideoEffect; timer: ReturnType<typeof setInterval> } | null = null;
/** The model in use: a project's version on the platform, or a package bundled with a static build. */
const picker = new ModelPicker($('#project-select'), $('#version-select'), onAsync(switchModel));
const effects = new EffectControls(() => {
  if (live) void live.fx.update(videoSettings()).catch((error: unknown) => status(describeError(error), 'error', 'error'));
  else presentEffect();
});
let compositor: Compositor | null = null;
/**
 * The photo's soft alpha (segmentRaw's, its edge following the photo's), which the photo effects draw:
 * asked for once a segmentation (`run`), when an effect first needs it; the class ids are drawn until it comes.
 */
let softAlpha: { run: number; alpha: Uint8Array | null } | null = null;
/** `?compositor=webgl2|canvas2d` forces one (tests, comparisons); by default WebGL2 on a GPU, else the CPU's. */
const compositorChoice = (new URLSearchParams(location.search).get('compositor') ?? 'auto') as CompositorChoice;

/** What tests read: the last payload and the result on screen. */
const state = {
  get payload() {
    return lastPayload;
  },
  get shown() {
    return viewer.result;
  },
  get backend() {
    return segmenter?.backend ?? null;
  },
  get model() {
    return picker.current;
  },
  get effect() {
    return effects.effect.kind;
  },
  get compositor() {
    return live?.fx.stats.compositor ?? compositor?.kind ?? null;
  },
  /** Whether the photo effect on screen draws the soft alpha (not yet the class ids). */
  get softEdges() {
    return softAlpha?.run === runId && softAlpha.alpha !== null;
  },
  /** The soft alpha the photo effects draw, once it has come. */
  get softAlpha() {
    return softAlpha?.run === runId ? softAlpha.alpha : null;
  },
  /** The camera mode's video effect stats (path, latency, dropped frames). */
  get video() {
    return live?.fx.stats ?? null;
  },
  ready: false,
  runs: 0,
  fps: 0,
  frames: 0,
  /** The camera mode's last mask (at the network's resolution) and its background id. */
  mask: null as { classIds: Uint8Array; width: number; height: number; background: number } | null,
};
(window as unknown as { edgesegDemo: typeof state }).edgesegDemo = state;

function backendsFor(choice: string): RuntimeBackendName[] {
  return choice === 'auto' ? ['webgpu', 'wasm', 'hosted'] : [choice as RuntimeBackendName];
}

/** Counts starts, so that a start overtaken by a newer one (the picker moved again) gives way to it. */
let startCount = 0;

async function startSegmenter(): Promise<Segmenter | null> {
  const start = ++startCount;
  const choice = $<HTMLSelectElement>('#backend-select').value;
  const previous = segmenter;
  segmenter = null;
  await previous?.dispose();
  status('Loading the model…', 'loading');
  const progress = $('#progress');
  const files = new Map<string, { loaded: number; total: number | null }>();
  // Progress messages from the worker can arrive after the model is ready: ignore those.
  let loading = true;
  try {
    const model = modelSource();
    const seg = await createSegmenter({
      model,
      platform,
      backends: typeof model === 'string' ? backendsFor(choice).filter((b) => b !== 'hosted') : backendsFor(choice),
      onProgress: (p) => {
        if (!loading) return;
        files.set(p.file, { loaded: p.loaded, total: p.total });
        let loaded = 0;
        let total = 0;
        for (const f of files.values()) {
          loaded += f.loaded;
          total += f.total ?? f.loaded;
        }
        progress.hidden = false;
        $('#progress-fill').style.width = `${total ? (100 * loaded) / total : 0}%`;
        $('#progress-text').textContent =
          `${p.cached ? 'from cache' : 'downloading'} ${p.file} · ${(loaded / 1e6).toFixed(2)} / ${(total / 1e6).toFixed(2)} MB`;
      },
    });
    if (start !== startCount) {
      void seg.dispose();
      return null;
    }
    segmenter = seg;
    loading = false;
    progress.hidden = true;
    showRuntime(seg);
    status(`Ready: ${seg.spec ? seg.spec.classNames.length : '?'} classes on ${seg.backend}`, seg.backend, seg.backend);
    state.ready = true;
    return seg;
  } catch (error) {
    loading = false;
    if (start !== startCount) return null;
    progress.hidden = true;
    status(describeError(error), 'error', 'error');
    $('#fallbacks').innerHTML =
      `<li><code>${escapeHtml((error as { code?: string }).code ?? 'ERROR')}</code> ${escapeHtml((error as Error).message)}</li>`;
    return null;
  }
}

/**
 * What the picker offers: the platform's projects and versions with a model where the platform answers;
 * else, in a static build, the packages bundled next to the page (vite.config.ts), so that the page still
 * segments from any static server (without the hosted route, the gallery and the panels).
 */
async function offerModels(): Promise<void> {
  let choices: ModelChoice[] | null;
  try {
    choices = await platformModels(platform, WORKSPACE, AbortSignal.timeout(5000));
  } catch (error) {
    choices = await bundledModels(location.href);
    if (!choices) {
      status(`No model: ${describeError(error)}`, 'error', 'error');
      return;
    }
    $('#model-source').hidden = false;
  }
  picker.offer(choices);
}

function modelSource(): string | { workspace: string; project: string; version: number } {
  const choice = picker.current;
  if (!choice) throw new Error('no model is offered: no platform answered and the page has no bundled model');
  return choice.packageUrl ?? { workspace: WORKSPACE, project: choice.project, version: choice.version };
}

/** Another project or version: a new segmenter, that project's samples, and the image on screen again. */
async function switchModel(choice: ModelChoice): Promise<void> {
  state.ready = false;
  starting = startSegmenter();
  await starting;
  if (choice !== picker.current) return;
  starting = null;
  void loadGallery(choice.project);
  if (!live) await run();
}

function showRuntime(seg: Segmenter): void {
  $('#backend-in-use').textContent = seg.backend + (seg.adapter ? ` (${seg.adapter})` : '');
  $('#threads').textContent = seg.backend === 'hosted' ? '—' : String(seg.numThreads);
  $('#isolated').textContent = crossOriginIsolated ? 'yes (COOP/COEP)' : 'no: WASM runs on one thread';
  $('#model-info').textContent = seg.spec
    ? `${seg.spec.generation} export, ${seg.spec.preprocess.resize.width}×${seg.spec.preprocess.resize.height} ${seg.spec.preprocess.resize.mode}`
    : 'hosted';
  const list = $('#fallbacks');
  list.replaceChildren(
    ...(seg.fallbacks.length
      ? seg.fallbacks.map((f) => {
          const li = document.createElement('li');
          li.innerHTML = `<b>${escapeHtml(f.backend)}</b> <code>${escapeHtml(f.code)}</code> ${escapeHtml(f.message)}`;
          return li;
        })
      : [Object.assign(document.createElement('li'), { className: 'muted', textContent: 'none' })]),
  );
  $('#backend-badge').textContent = seg.backend;
  $('#backend-badge').className = `badge ${seg.backend}`;
}

function showTimings(): void {
  const t = segmenter?.lastTimings;
  if (!t) return;
  const rows = (['decode', 'preprocess', 'run', 'postprocess', 'encode', 'total'] as const).filter((k) => t[k] !== undefined);
  $('#timings').innerHTML = rows.map((k) => `<tr><td>${k}</td><td>${t[k]!.toFixed(1)} ms</td></tr>`).join('');
}

function resultOf(raw: RawSegmentation): ShownResult {
  const classNames = Object.keys(raw.class_map)
    .sort((a, b) => Number(a) - Number(b))
    .map((k) => raw.class_map[k]!);
  const background = Math.max(
    0,
    classNames.findIndex((n) => n.toLowerCase() === 'background'),
  );
  const colors = classColors({ classNames, colors: segmenter?.spec?.colors ?? {}, backgroundClassId: background });
  return { classIds: raw.classIds, width: raw.width, height: raw.height, classNames, colors, background };
}

/** Segments the current image; a newer request supersedes an older one still running. */
async function run(): Promise<void> {
  if (!current) return;
  const seg = segmenter ?? (await (starting ??= startSegmenter()));
  starting = null;
  if (!seg) return;
  const id = ++runId;
  const confidence = Number($<HTMLInputElement>('#confidence').value);
  status('Segmenting…');
  try {
    const payload = await seg.segment(current.blob, { confidence });
    if (id !== runId) return;
    lastPayload = payload;
    viewer.drawMask(resultOf(rawFromPayload(payload)));
    presentEffect();
    showRuntime(seg);
    showTimings();
    state.runs++;
    for (const b of ['#download-json', '#download-png', '#compare-button']) $<HTMLButtonElement>(b).disabled = false;
    $('#compare').hidden = true;
    status(`Segmented ${payload.image.width}×${payload.image.height} on ${seg.backend} in ${seg.lastTimings?.total.toFixed(0)} ms`);
  } catch (error) {
    if (id === runId) status(describeError(error), undefined);
  }
}

/**
 * The effect on the image on screen (the mask canvas shows the overlay, the effect canvas the rest).
 * `frame` is the picture the mask was computed from: the camera's frame, else the still image.
 */
function presentEffect(frame?: FrameSource): void {
  const effect = effects.effect;
  const result = viewer.result;
  const on = effect.kind !== 'overlay' && result !== null;
  $('#stage').classList.toggle('effect', on);
  $('#effect-canvas').hidden = !on;
  if (!on) return;
  $('#stage-empty').hidden = true;
  const source = frame ?? current?.bitmap;
  if (!source) return;
  try {
    compositor ??= createCompositor($<HTMLCanvasElement>('#effect-canvas'), compositorChoice);
    compositor.render(source, frame ? result : stillMask(result), effect);
  } catch (error) {
    status(describeError(error), 'error', 'error');
  }
}

/** The photo's soft alpha once it has come, else its class ids (and the alpha is asked for). */
function stillMask(result: ShownResult): EffectMask | AlphaMask {
  const { width, height } = result;
  if (softAlpha?.run === runId) return softAlpha.alpha?.length === width * height ? { alpha: softAlpha.alpha, width, height } : result;
  const [run, seg, image] = [runId, segmenter, current];
  softAlpha = { run, alpha: null };
  if (seg && image) {
    const confidence = Number($<HTMLInputElement>('#confidence').value);
    seg.segmentRaw(image.blob, { confidence, alpha: true }).then(
      ({ alpha }) => {
        if (softAlpha?.run !== run || current !== image) return;
        softAlpha.alpha = alpha;
        presentEffect();
      },
      // The class ids stay on screen.
      () => undefined,
    );
  }
  return result;
}

async function show(blob: Blob, id?: string): Promise<void> {
  stopCamera();
  let bitmap: ImageBitmap;
  try {
    bitmap = await createImageBitmap(blob, { imageOrientation: 'from-image' });
  } catch {
    status('That file is not an image this browser can read.', 'error', 'error');
    return;
  }
  current = { blob, bitmap, ...(id ? { id } : {}) };
  viewer.drawImage(bitmap, bitmap.width, bitmap.height);
  for (const b of document.querySelectorAll('#gallery button, #search-results button'))
    b.toggleAttribute('aria-current', (b as HTMLElement).dataset.id === id);
  await run();
}

async function openUrl(url: string, id?: string): Promise<void> {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    await show(await response.blob(), id);
  } catch (error) {
    status(`Could not load the image: ${describeError(error)}`, 'error', 'error');
  }
}

// Sources: file, drag and drop, paste, the camera.
function setUpSources(): void {
  const input = $<HTMLInputElement>('#file-input');
  input.addEventListener(
    'change',
    onAsync(async () => {
      const file = input.files?.[0];
      if (file) await show(file);
    }),
  );
  $('label[for=file-input]').addEventListener(
    'keydown',
    (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), input.click()),
  );
  const drop = $('#drop-zone');
  drop.addEventListener('dragover', (e) => (e.preventDefault(), drop.classList.add('over')));
  drop.addEventListener('dragleave', () => drop.classList.remove('over'));
  drop.addEventListener(
    'drop',
    onAsync(async (e: DragEvent) => {
      e.preventDefault();
      drop.classList.remove('over');
      const file = e.dataTransfer?.files[0];
      if (file) await show(file);
    }),
  );
  drop.addEventListener('keydown', (e) => (e.key === 'Enter' || e.key === ' ') && (e.preventDefault(), input.click()));
  document.addEventListener(
    'paste',
    onAsync(async (e: ClipboardEvent) => {
      const file = [...(e.clipboardData?.items ?? [])].find((i) => i.type.startsWith('image/'))?.getAsFile();
      if (file) await show(file);
    }),
  );
  $('#paste-button').addEventListener(
    'click',
    onAsync(async () => {
      let image: Blob | null = null;
      try {
        for (const item of await navigator.clipboard.read()) {
          const type = item.types.find((t) => t.startsWith('image/'));
          if (type) {
            image = await item.getType(type);
            break;
          }
        }
      } catch {
        return status('Paste with Ctrl/⌘+V (this browser does not let the page read the clipboard directly).');
      }
      if (image) await show(image);
      else status('The clipboard holds no image.');
    }),
  );
  $('#camera-button').addEventListener(
    'click',
    onAsync(async () => {
      if (live) stopCamera();
      else await startCamera();
    }),
  );
  // waitForMask is set when the effect is made: a running camera starts again with the new choice.
  $('#wait-for-mask').addEventListener(
    'change',
    onAsync(async () => {
      if (!live) return;
      stopCamera();
      await startCamera();
    }),
  );
}

/** The camera-masks control's value as createVideoEffect takes it. */
function waitForMaskChoice(value: string): boolean | 'auto' {
  return value === 'auto' ? 'auto' : value === 'true';
}

/** The effect controls and the confidence as the video effect takes them. */
function videoSettings(): VideoEffectSettings {
  const effect: Effect = effects.effect;
  const confidence = Number($<HTMLInputElement>('#confidence').value);
  if (effect.kind === 'color') return { effect: 'color', background: effect.color, confidence };
  if (effect.kind === 'image') return { effect: 'image', background: effect.image, confidence };
  return { effect: effect.kind, confidence };
}

/** The camera through the library's video effect (model, frame loop and compositor in its worker); the page shows its output track. */
async function startCamera(): Promise<void> {
  const seg = segmenter ?? (await (starting ??= startSegmenter()));
  if (!seg) return;
  let stream: MediaStream;
  try {
    stream = await navigator.mediaDevices.getUserMedia({ video: { width: 640, height: 480 }, audio: false });
  } catch (error) {
    status(`No camera: ${describeError(error)}`);
    return;
  }
  status('Starting the video effect…', 'loading');
  let fx: VideoEffect;
  try {
    const local = backendsFor($<HTMLSelectElement>('#backend-select').value).filter((b): b is 'webgpu' | 'wasm' => b !== 'hosted');
    fx = await createVideoEffect({
      model: modelSource(),
      platform,
      backends: local.length ? local : ['webgpu', 'wasm'],
      compositor: compositorChoice,
      waitForMask: waitForMaskChoice($<HTMLSelectElement>('#wait-for-mask').value),
      ...videoSettings(),
    });
  } catch (error) {
    for (const t of stream.getTracks()) t.stop();
    status(describeError(error), 'error', 'error');
    return;
  }
  const background = seg.spec?.backgroundClassId ?? 0;
  fx.onMask = (mask) => (state.mask = { ...mask, background });
  fx.onError = (error) => {
    status(describeError(error), 'error', 'error');
    stopCamera();
  };
  const output = $<HTMLVideoElement>('#camera-output');
  output.srcObject = new MediaStream([fx.process(stream.getVideoTracks()[0]!)]);
  output.hidden = false;
  $('#stage').classList.add('live');
  $('#stage-empty').hidden = true;
  // Not awaited: WebKit's play() of a track may never settle while its frames show.
  output.play().catch((error: unknown) => status(describeError(error), 'error', 'error'));
  $('#camera-button').setAttribute('aria-pressed', 'true');
  current = null;
  const fps = $('#stage-fps');
  fps.hidden = false;
  const timer = setInterval(() => {
    const stats = fx.stats;
    state.fps = stats.fps;
    state.frames = stats.frames;
    $('#fps').textContent = fps.textContent = `${stats.fps} frames/s`;
    $('#timings').innerHTML = [
      ['path', stats.path ?? '—'],
      ['compositor', stats.compositor ?? '—'],
      ['latency p50', `${stats.latency.p50.toFixed(0)} ms`],
      ['latency p95', `${stats.latency.p95.toFixed(0)} ms`],
      ['dropped', String(stats.dropped)],
      ['masks', String(stats.masks)],
    ]
      .map(([k, v]) => `<tr><td>${k}</td><td>${escapeHtml(v!)}</td></tr>`)
      .join('');
  }, 250);
  live = { stream, fx, timer };
  status(`Camera on ${fx.stats.backend}`);
}

function stopCamera(): void {
  if (!live) return;
  clearInterval(live.timer);
  void live.fx.close();
  for (const t of live.stream.getTracks()) t.stop();
  live = null;
  const output = $<HTMLVideoElement>('#camera-output');
  output.srcObject = null;
  output.hidden = true;
  $('#stage').classList.remove('live');
  $('#camera-button').setAttribute('aria-pressed', 'false');
  $('#fps').textContent = '';
  $('#stage-fps').hidden = true;
}

// Downloads and the comparison with the hosted route.
function download(name: string, blob: Blob): void {
  const a = document.createElement('a');
  a.href = URL.createObjectURL(blob);
  a.download = name;
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 1000);
}

function setUpResultActions(): void {
  $('#download-json').addEventListener(
    'click',
    () => lastPayload && download('payload.json', new Blob([JSON.stringify(lastPayload, null, 2)], { type: 'application/json' })),
  );
  $('#download-png').addEventListener(
    'click',
    () => lastPayload && download('mask.png', new Blob([base64ToBytes(lastPayload.segmentation_mask) as BlobPart], { type: 'image/png' })),
  );
  $('#compare-button').addEventListener(
    'click',
    onAsync(async () => {
      if (!current || !viewer.result) return;
      const text = $('#compare-text');
      $('#compare').hidden = false;
      text.textContent = 'Asking the hosted route…';
      try {
        const hosted = rawFromPayload(
          await platform.segmentHosted(picker.current!.project, picker.current!.version, current.blob, {
            confidence: Number($<HTMLInputElement>('#confidence').value),
          }),
        );
        const local = viewer.result;
        paintClassIds($<HTMLCanvasElement>('#compare-local'), local.classIds, local.width, local.height, local.colors);
        paintClassIds($<HTMLCanvasElement>('#compare-hosted'), hosted.classIds, hosted.width, hosted.height, local.colors);
        let equal = 0;
        for (let i = 0; i < hosted.classIds.length; i++) if (hosted.classIds[i] === local.classIds[i]) equal++;
        text.textContent = `${((100 * equal) / hosted.classIds.length).toFixed(3)}% of ${hosted.classIds.length} pixels are the same class on ${segmenter?.backend ?? 'local'} and on the hosted route.`;
      } catch (error) {
        text.textContent = describeError(error);
      }
    }),
  );
}

let galleryRun = 0;
async function loadGallery(project: string): Promise<void> {
  const gallery = $('#gallery');
  const more = $<HTMLButtonElement>('#gallery-more');
  gallery.replaceChildren();
  const run = ++galleryRun;
  const pages = platform.searchAll(WORKSPACE, project, { limit: 12, fields: ['id', 'name', 'tags'] });
  const next = async () => {
    try {
      const { value, done } = await pages.next();
      // A newer project's gallery replaces this one.
      if (run !== galleryRun) return;
      if (done || !value) return void (more.hidden = true);
      for (const r of value.results) {
        const b = document.createElement('button');
        b.type = 'button';
        b.dataset.id = r.id;
        b.setAttribute('role', 'listitem');
        b.title = `${r.name} — ${(r.tags ?? []).join(', ')}`;
        const url = imageUrlOf({ platform: () => platform, workspace: () => WORKSPACE, project }, r.id);
        const img = Object.assign(document.createElement('img'), { alt: r.name, loading: 'lazy', crossOrigin: 'anonymous' });
        void url.then(
          (u) => (img.src = u),
          () => (img.alt = `${r.name} (unavailable)`),
        );
        b.append(img);
        b.addEventListener(
          'click',
          onAsync(async () => openUrl(await url, r.id)),
        );
        gallery.append(b);
      }
      more.hidden = gallery.children.length >= value.total;
    } catch (error) {
      const note = Object.assign(document.createElement('p'), { className: 'gallery-note' });
      note.textContent = `The sample gallery needs the platform: ${describeError(error)}`;
      if (run === galleryRun) gallery.replaceChildren(note);
    }
  };
  more.onclick = onAsync(next);
  await next();
}

function setUpControls(): void {
  const confidence = $<HTMLInputElement>('#confidence');
  let timer = 0;
  confidence.addEventListener('input', () => {
    $('#confidence-out').textContent = confidence.value;
    clearTimeout(timer);
    if (live)
      void live.fx
        .update({ confidence: Number(confidence.value) })
        .catch((error: unknown) => status(describeError(error), 'error', 'error'));
    else timer = window.setTimeout(onAsync(run), 120);
  });
  const opacity = $<HTMLInputElement>('#opacity');
  const setOpacity = () => {
    viewer.opacity = Number(opacity.value) / 100;
    $('#opacity-out').textContent = `${opacity.value}%`;
  };
  opacity.addEventListener('input', setOpacity);
  setOpacity();
  $('#backend-select').addEventListener(
    'change',
    onAsync(async () => {
      state.ready = false;
      starting = startSegmenter();
      await starting;
      starting = null;
      await run();
    }),
  );
}

// Start.
$<HTMLInputElement>('#base-url').value = settings.baseUrl;
$<HTMLInputElement>('#api-key').value = settings.apiKey;
setUpTabs();
setUpSources();
setUpControls();
setUpResultActions();
const panelContext = {
  platform: () => platform,
  workspace: () => WORKSPACE,
  get project() {
    return picker.current?.project ?? '';
  },
  openImage: onAsync(openUrl),
  classNames: () => segmenter?.spec?.classNames ?? [],
};
setUpKeyPanel(panelContext, (baseUrl, apiKey) => {
  // The client first: settings it refuses (an empty key) are shown by the key panel and never stored,
  // since a stored one would break the page at its next load.
  platform = makePlatform({ baseUrl, apiKey });
  Object.assign(settings, { baseUrl, apiKey });
  localStorage.setItem('edgeseg.baseUrl', baseUrl);
  localStorage.setItem('edgeseg.apiKey', apiKey);
});
setUpCatalog(panelContext);
setUpSearch(panelContext);
setUpSynthetic(panelContext);
starting = offerModels().then(startSegmenter);
void starting
  .then(() => {
    starting = null;
    return loadGallery(picker.current?.project ?? '');
  })
  .catch(showError);
