// A user's video app: createVideoEffect with no option but the effect (the bundled people model, found
// by the bundler as the worker is), a canvas's track in, the output played in a <video>; publishes the
// path, the frame count and the output's centre pixel on `window.edgesegResult`.
import { createVideoEffect } from 'edgeseg';

function canvasTrack() {
  const canvas = document.createElement('canvas');
  [canvas.width, canvas.height] = [320, 240];
  const ctx = canvas.getContext('2d');
  let n = 0;
  const draw = () => {
    ctx.fillStyle = `rgb(${90 + (n++ % 20)}, 110, 160)`;
    ctx.fillRect(0, 0, 320, 240);
    requestAnimationFrame(draw);
  };
  draw();
  return canvas.captureStream(30).getVideoTracks()[0];
}

const until = async (check, ms = 90_000) => {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
};

async function run() {
  const fx = await createVideoEffect({ effect: 'color', background: '#00ff00', backends: ['wasm'] });
  try {
    const input = canvasTrack();
    const output = fx.process(input);
    await until(() => fx.stats.frames >= 3);
    const video = document.createElement('video');
    video.muted = true;
    video.srcObject = new MediaStream([output]);
    // Not awaited: WebKitGTK's play() of a track may never settle while its frames show.
    void video.play().catch(() => undefined);
    await until(() => video.videoWidth > 0);
    const nextFrame = () => {
      let shown = false;
      video.requestVideoFrameCallback(() => (shown = true));
      return until(() => shown, 2000).then(
        () => true,
        () => false,
      );
    };
    await nextFrame();
    const ctx = new OffscreenCanvas(video.videoWidth, video.videoHeight).getContext('2d');
    const read = () => {
      ctx.drawImage(video, 0, 0);
      return [...ctx.getImageData(video.videoWidth >> 1, video.videoHeight >> 1, 1, 1).data];
    };
    // Under load, WebKitGTK's <video> of a track once drew nothing (0,0,0,0) after a frame callback, and
    // showed the input's picture now and then after the loop changed: a read without the effect is taken
    // again over a few more frames. An output that never shows the effect still fails.
    const green = ([r, g, b]) => Math.abs(r) + Math.abs(g - 255) + Math.abs(b) < 30;
    let centre = read();
    for (let i = 0; i < 8 && !green(centre); i++) {
      if (!(await nextFrame())) break;
      centre = read();
    }
    const { path, frames, backend, compositor } = fx.stats;
    input.stop();
    return {
      isolated: globalThis.crossOriginIsolated === true,
      video: { path, frames, backend, compositor, centre, classes: fx.segmenter.spec.classNames },
    };
  } finally {
    await fx.close();
  }
}

run()
  .catch((error) => ({
    isolated: globalThis.crossOriginIsolated === true,
    failed: { name: error.name, code: error.code, message: error.message },
  }))
  .then((result) => {
    window.edgesegResult = result;
    document.querySelector('#status').textContent = 'done';
  });
