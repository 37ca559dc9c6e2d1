// What the live-video tests share: a live canvas track, waiting on a condition, and the picture of a track.

/**
 * A live video track from a canvas that redraws itself (a flat scene with no person), and how to stop it.
 * `every`: a new frame every `every` ms instead of every animation frame (the track then says 60 frames/s,
 * as a camera's driver does in low light while it gives far fewer).
 */
export function canvasTrack(every?: number): { track: MediaStreamTrack; stop(): void } {
  const canvas = document.createElement('canvas');
  [canvas.width, canvas.height] = [320, 240];
  const ctx = canvas.getContext('2d')!;
  let frame = 0;
  let running = true;
  const draw = () => {
    if (!running) return;
    ctx.fillStyle = `rgb(${90 + (frame++ % 20)}, 110, 160)`;
    ctx.fillRect(0, 0, 320, 240);
    ctx.fillStyle = '#ddd';
    ctx.fillRect(40, 40, 60, 60);
    if (every) setTimeout(draw, every);
    else requestAnimationFrame(draw);
  };
  draw();
  const track = canvas.captureStream(30).getVideoTracks()[0]!;
  if (every) {
    const settings = track.getSettings.bind(track);
    track.getSettings = () => ({ ...settings(), frameRate: 60 });
  }
  return {
    track,
    stop() {
      running = false;
      track.stop();
    },
  };
}

/** Waits for `check`; on a timeout, the error names `what` (a function: what it says then, as the state at the end). */
export async function until(check: () => boolean, what: string | (() => string), ms = 60_000): Promise<void> {
  const end = performance.now() + ms;
  while (!check()) {
    if (performance.now() > end) throw new Error(`timed out waiting for ${typeof what === 'function' ? what() : what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/**
 * Whether an RGB(A) pixel is canvasTrack's picture at its centre, rgb(90–109, 110, 160), give or take 20
 * a channel (a blur keeps it too).
 */
export const isCanvasPicture = ([r, g, b]: readonly number[]): boolean =>
  Math.abs(r! - 100) < 20 && Math.abs(g! - 110) < 20 && Math.abs(b! - 160) < 20;

/**
 * A playing <video> of `track`, and the pixel at its centre now; `close()` lets the track go. Throws where
 * the engine refuses to play it.
 */
export async function videoOf(track: MediaStreamTrack): Promise<{ video: HTMLVideoElement; centre: () => number[]; close: () => void }> {
  const video = document.createElement('video');
  video.muted = true;
  video.srcObject = new MediaStream([track]);
  const close = () => void (video.srcObject = null);
  // Not awaited: WebKitGTK's play() of a track may never settle while its frames show (a test hung on it).
  const play = { refused: null as string | null };
  video.play().catch((error: unknown) => (play.refused = error instanceof Error ? error.message : 'refused'));
  try {
    await until(() => video.videoWidth > 0 || play.refused !== null, 'the output video to play');
    if (play.refused !== null) throw new Error(`the output video did not play: ${play.refused}`);
  } catch (error) {
    close();
    throw error;
  }
  const ctx = new OffscreenCanvas(1, 1).getContext('2d', { willReadFrequently: true })!;
  const centre = () => {
    ctx.drawImage(video, video.videoWidth >> 1, video.videoHeight >> 1, 1, 1, 0, 0, 1, 1);
    return [...ctx.getImageData(0, 0, 1, 1).data];
  };
  return { video, centre, close };
}

/** The output track's picture, through a <video> element (every engine plays a track so). */
export async function centreOf(output: MediaStreamTrack): Promise<number[]> {
  const { video, centre: read, close } = await videoOf(output);
  try {
    // The second frame shown: the first one a <video> shows of a track may be one it had before it played
    // (seen once in WebKitGTK, black). In CI, WebKitGTK's video of the main-thread path's output sometimes
    // called back no frame for a minute after a worker was replaced, while the effect wrote frames: after
    // 15 s, the picture it shows is read.
    const nextFrame = (ms: number) => {
      let shown = false;
      video.requestVideoFrameCallback(() => (shown = true));
      return until(() => shown, 'a frame', ms).then(
        () => true,
        () => false,
      );
    };
    for (let i = 0; i < 2; i++) if (!(await nextFrame(15_000))) break;
    // Under CI's load WebKitGTK's <video> once drew black on the Safari path though it had called back
    // frames: a black read is taken again over a few more frames. An output that stays black still fails.
    let pixel = read();
    for (let i = 0; i < 8 && pixel[0] === 0 && pixel[1] === 0 && pixel[2] === 0; i++) {
      if (!(await nextFrame(2000))) break;
      pixel = read();
    }
    return pixel;
  } finally {
    close();
  }
}

/**
 * The path createVideoEffect should take in this engine, from what the engine offers: Chromium's track
 * generator on the page, else a track processor and generator in workers (Safari 18), else neither.
 */
export async function expectedPath(): Promise<'worker' | 'main-thread'> {
  if (typeof (globalThis as { MediaStreamTrackGenerator?: unknown }).MediaStreamTrackGenerator === 'function') return 'worker';
  const probe = "postMessage(typeof VideoTrackGenerator === 'function' && typeof MediaStreamTrackProcessor === 'function')";
  const url = URL.createObjectURL(new Blob([probe], { type: 'text/javascript' }));
  const worker = new Worker(url);
  try {
    const inWorkers = await new Promise<boolean>((resolve, reject) => {
      worker.onmessage = (event: MessageEvent<boolean>) => resolve(event.data);
      worker.onerror = () => reject(new Error('the probe worker failed'));
    });
    return inWorkers ? 'worker' : 'main-thread';
  } finally {
    worker.terminate();
    URL.revokeObjectURL(url);
  }
}
