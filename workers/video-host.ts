// The live-video half of the worker (VideoWorkerApi): a frame loop on this worker's model or on another
// worker's (served over a port), this worker's track generators for the track path, and the model served
// to a loop in another worker. Apart from the still-image API of segment-worker.ts, which mounts it.
import { transfer } from 'comlink';
import { BackendError } from '../src/errors/index.js';
import type { ModelSpec } from '../src/model/index.js';
import type { RunModel } from '../src/pipeline/index.js';
import type { VideoWorkerApi } from '../src/video/protocol.js';
import { TrackOutput } from '../src/video/track-output.js';
import { localVideoModel, remoteVideoModel, serveVideoModel } from '../src/video/video-model.js';
import { VideoSession } from '../src/video/video-session.js';

/** The video API on `model()` (this worker's loaded model: throws where none is), and its disposal. */
export function videoHost(model: () => [ModelSpec, RunModel]): { api: VideoWorkerApi; dispose(): Promise<void> } {
  // The live-video loop of createVideoEffect, when one runs.
  let video: VideoSession | null = null;
  // The track path: this worker's track generators by id (one the output, one made ahead for the next
  // process()), the one the loop writes, and the input track the loop reads.
  const outputs = new Map<number, TrackOutput>();
  let outputIds = 0;
  let output: number | null = null;
  let inputTrack: MediaStreamTrack | null = null;

  /** Ends the output the loop wrote (a generator made ahead stays). */
  async function endOutput(): Promise<void> {
    const current = output === null ? undefined : outputs.get(output);
    if (output !== null) outputs.delete(output);
    output = null;
    await current?.close();
  }

  /** Stops the loop (not the output: another loop may take it over); resolves with the input frames still open. */
  async function stopVideo(): Promise<number> {
    const open = (await video?.stop()) ?? 0;
    video = null;
    inputTrack?.stop();
    inputTrack = null;
    return open;
  }

  const api: VideoWorkerApi = {
    async videoStart(request, events) {
      await stopVideo();
      let { input } = request;
      if (input.kind === 'track') {
        const generator = outputs.get(input.output);
        if (!generator) {
          input.track.stop();
          throw new BackendError('BACKEND_UNAVAILABLE', `this worker has no track generator ${input.output} (videoOutput)`);
        }
        if (output !== input.output) await endOutput();
        [output, inputTrack] = [input.output, input.track];
        input = { kind: 'streams', ...generator.streams(input.track), ...(input.frameRate ? { frameRate: input.frameRate } : {}) };
      }
      video = new VideoSession(
        request.model ? remoteVideoModel(request.model.spec, request.model.port) : localVideoModel(...model()),
        request.settings,
        events,
      );
      return video.start({ ...request, input });
    },

    videoOutput() {
      const generator = TrackOutput.create();
      if (!generator) return Promise.resolve(null);
      const id = ++outputIds;
      outputs.set(id, generator);
      return Promise.resolve(transfer({ id, track: generator.track }, [generator.track as unknown as Transferable]));
    },

    videoServeModel(port) {
      serveVideoModel(...model(), port);
      return Promise.resolve();
    },

    async videoFrame(frame, meta) {
      if (!video) {
        if (frame instanceof ImageBitmap) frame.close();
        throw new BackendError('BACKEND_UNAVAILABLE', 'no video effect runs in this worker');
      }
      // Pixels (WebKit's page): a bitmap of this worker's own.
      return video.frame(frame instanceof ImageBitmap ? frame : await createImageBitmap(frame), meta);
    },

    videoUpdate(settings) {
      video?.update(settings);
      return Promise.resolve();
    },

    async videoStop() {
      const open = await stopVideo();
      await endOutput();
      return open;
    },
  };

  return {
    api,
    async dispose() {
      await stopVideo();
      await Promise.all([...outputs.values()].map((generator) => generator.close()));
      outputs.clear();
      output = null;
    },
  };
}
