// The frame loop's life on the page and what each failure does (nextLoop), in Node: every rule, and the
// sequences of a recovery and of a replaced loop.
import { describe, expect, test } from 'vitest';
import { BackendError } from '../../../src/errors/index.js';
import { nextLoop, type LoopEvent, type LoopFacts, type LoopState } from '../../../src/video/loop-state.js';

const LIVE: LoopFacts = { inputLive: true, outputInLoopWorker: false };
const ENDED: LoopFacts = { inputLive: false, outputInLoopWorker: false };
const running = (generation = 1): LoopState => ({ is: 'running', generation });
const recovering = (generation = 1, loop: 'starting' | 'running' = 'running'): LoopState => ({ is: 'recovering', generation, loop });
const failed = new BackendError('BACKEND_FAILED', 'the webgpu backend failed while running');
const crashed = new BackendError('WORKER_CRASHED', 'the worker is gone');
const other = new BackendError('BACKEND_UNAVAILABLE', 'no video effect runs in this worker');

/** The events in order from `state`: the state after each, and each action. */
function run(state: LoopState, events: LoopEvent[], facts = LIVE) {
  const acts = [];
  for (const event of events) {
    const next = nextLoop(state, event, facts);
    [state] = [next.state];
    acts.push(next.act);
  }
  return { state, acts };
}

describe('nextLoop: starting and running', () => {
  test('each start is a new loop, numbered after the last; started once its own worker says so', () => {
    expect(nextLoop({ is: 'closed', generation: 0 }, { on: 'start' }, LIVE)).toEqual({
      state: { is: 'starting', generation: 1 },
      act: { do: 'nothing' },
    });
    expect(nextLoop({ is: 'starting', generation: 1 }, { on: 'started', generation: 1 }, LIVE).state).toEqual(running(1));
    // A replaced loop's start says nothing of the new one.
    expect(nextLoop({ is: 'starting', generation: 2 }, { on: 'started', generation: 1 }, LIVE).state).toEqual({
      is: 'starting',
      generation: 2,
    });
    expect(nextLoop(running(2), { on: 'start' }, LIVE).state).toEqual({ is: 'starting', generation: 3 });
  });

  test("a loop started during a recovery is the recovery's: recovering until it is over, then starting or running", () => {
    const { state } = run(recovering(1), [{ on: 'start' }]);
    expect(state).toEqual(recovering(2, 'starting'));
    expect(run(state, [{ on: 'recovery-over' }]).state).toEqual({ is: 'starting', generation: 2 });
    expect(run(state, [{ on: 'started', generation: 2 }, { on: 'recovery-over' }]).state).toEqual(running(2));
  });
});

describe('nextLoop: failures', () => {
  test('a frame the model failed on (the loop goes on): the next backend, once; not while a recovery runs, nor once the input ended', () => {
    expect(nextLoop(running(), { on: 'frame-failed', generation: 1, error: failed }, LIVE)).toEqual({
      state: recovering(1, 'running'),
      act: { do: 'recover', failure: 'failed', error: failed },
    });
    expect(nextLoop(recovering(), { on: 'frame-failed', generation: 1, error: failed }, LIVE).act).toEqual({ do: 'nothing' });
    expect(nextLoop(running(), { on: 'frame-failed', generation: 1, error: failed }, ENDED)).toEqual({
      state: running(),
      act: { do: 'nothing' },
    });
  });

  test("a dead model worker: a fresh one on the same backend, while the loop starts or runs; a replaced loop's worker is not", () => {
    expect(nextLoop({ is: 'starting', generation: 1 }, { on: 'model-died', generation: 1, error: crashed }, LIVE)).toEqual({
      state: recovering(1, 'starting'),
      act: { do: 'recover', failure: 'crashed', error: crashed },
    });
    expect(nextLoop(running(2), { on: 'model-died', generation: 1, error: crashed }, LIVE).act).toEqual({ do: 'nothing' });
  });

  test('a loop that stopped: on a failed backend or a dead worker it is recovered from while the input is live; else the output ends with its error', () => {
    const ended = (error: Error | undefined, facts = LIVE) =>
      nextLoop(running(), { on: 'loop-ended', generation: 1, ...(error ? { error } : {}) }, facts);
    // Its input ended: the output ends, no error.
    expect(ended(undefined)).toEqual({ state: { is: 'closed', generation: 1 }, act: { do: 'end' } });
    // The model failed on its first frame (no good mask yet): the next backend.
    expect(ended(failed).act).toEqual({ do: 'recover', failure: 'failed', error: failed });
    expect(ended(crashed).act).toEqual({ do: 'recover', failure: 'crashed', error: crashed });
    expect(ended(other)).toEqual({ state: { is: 'closed', generation: 1 }, act: { do: 'end', error: other } });
    expect(ended(failed, ENDED).act).toEqual({ do: 'end', error: failed });
    // Stopped while its worker is replaced: not the output's end.
    expect(nextLoop(recovering(), { on: 'loop-ended', generation: 1, error: other }, LIVE).act).toEqual({ do: 'nothing' });
  });

  test("a loop that could not start: as a loop that stopped, but a recovery does not hide it, and a dead loop worker is that worker's event", () => {
    const startFailed = (state: LoopState, error: Error, loopDied = false) =>
      nextLoop(state, { on: 'start-failed', generation: 1, error, loopDied }, LIVE);
    expect(startFailed({ is: 'starting', generation: 1 }, crashed).act).toEqual({ do: 'recover', failure: 'crashed', error: crashed });
    expect(startFailed({ is: 'starting', generation: 1 }, other).act).toEqual({ do: 'end', error: other });
    expect(startFailed(recovering(1, 'starting'), other).act).toEqual({ do: 'end', error: other });
    expect(startFailed(recovering(1, 'starting'), crashed).act).toEqual({ do: 'nothing' });
    expect(startFailed({ is: 'starting', generation: 1 }, crashed, true).act).toEqual({ do: 'nothing' });
  });

  test('a dead loop worker: the loop starts again on the same output; where the output lived in it (the track path), the output ends with WORKER_CRASHED', () => {
    expect(nextLoop(running(), { on: 'loop-died', generation: 1 }, LIVE)).toEqual({ state: running(), act: { do: 'restart' } });
    // Not held up by a recovery under way.
    expect(nextLoop(recovering(), { on: 'loop-died', generation: 1 }, LIVE).act).toEqual({ do: 'restart' });
    const track = nextLoop(running(), { on: 'loop-died', generation: 1 }, { inputLive: true, outputInLoopWorker: true });
    expect(track.state).toEqual({ is: 'closed', generation: 1 });
    expect(track.act).toMatchObject({ do: 'end', error: { code: 'WORKER_CRASHED' } });
    expect(nextLoop(running(), { on: 'loop-died', generation: 1 }, ENDED).act).toEqual({ do: 'nothing' });
  });

  test("the frames path's calls: a dead model worker is recovered from (not where the loop's worker died), any other failure ends the output unless a recovery runs", () => {
    const call = (state: LoopState, error: Error, loopDied = false) =>
      nextLoop(state, { on: 'frame-call-failed', generation: 1, error, loopDied }, LIVE).act;
    expect(call(running(), crashed)).toEqual({ do: 'recover', failure: 'crashed', error: crashed });
    expect(call(running(), crashed, true)).toEqual({ do: 'nothing' });
    expect(call(running(), other)).toEqual({ do: 'end', error: other });
    // Unlike a loop that stopped on it, a call that failed on a backend's failure ends the output.
    expect(call(running(), failed)).toEqual({ do: 'end', error: failed });
    expect(call(recovering(), other)).toEqual({ do: 'nothing' });
    expect(nextLoop(running(), { on: 'page-failed', generation: 1, error: other }, LIVE).act).toEqual({ do: 'end', error: other });
  });
});

describe('nextLoop: a recovery, the input ending, closing', () => {
  test("a dead model worker mid-call: recovering, the loop started again on the new worker, the old loop's end ignored, then running", () => {
    const { state, acts } = run(running(1), [
      { on: 'model-died', generation: 1, error: crashed },
      { on: 'loop-ended', generation: 1, error: crashed },
      { on: 'recovered' },
      { on: 'start' },
      { on: 'loop-ended', generation: 1, error: crashed },
      { on: 'recovery-over' },
      { on: 'started', generation: 2 },
    ]);
    expect(acts.map((a) => a.do)).toEqual(['recover', 'nothing', 'restart', 'nothing', 'nothing', 'nothing', 'nothing']);
    expect(state).toEqual(running(2));
  });

  test('a recovery that found no worker ends the output with its error; one that ends once the input did, with none', () => {
    expect(nextLoop(recovering(), { on: 'recovery-failed', error: other }, LIVE)).toEqual({
      state: { is: 'closed', generation: 1 },
      act: { do: 'end', error: other },
    });
    expect(nextLoop(recovering(), { on: 'recovered' }, ENDED)).toEqual({ state: { is: 'closed', generation: 1 }, act: { do: 'end' } });
    // A recovery's news once it no longer runs (the input ended meanwhile, or a new loop started): ignored.
    expect(nextLoop(running(2), { on: 'recovered' }, LIVE).act).toEqual({ do: 'nothing' });
    expect(nextLoop(running(2), { on: 'recovery-failed', error: other }, LIVE).act).toEqual({ do: 'nothing' });
  });

  test('the input ending ends the output, a recovery under way too; once closed, nothing but a new start moves the loop', () => {
    expect(nextLoop(recovering(), { on: 'input-ended' }, ENDED)).toEqual({ state: { is: 'closed', generation: 1 }, act: { do: 'end' } });
    const closed = nextLoop(running(), { on: 'close' }, LIVE).state;
    expect(closed).toEqual({ is: 'closed', generation: 1 });
    const events: LoopEvent[] = [
      { on: 'started', generation: 1 },
      { on: 'loop-ended', generation: 1, error: other },
      { on: 'frame-failed', generation: 1, error: failed },
      { on: 'model-died', generation: 1, error: crashed },
      { on: 'loop-died', generation: 1 },
      { on: 'frame-call-failed', generation: 1, error: other, loopDied: false },
      { on: 'page-failed', generation: 1, error: other },
      { on: 'input-ended' },
      { on: 'recovered' },
      { on: 'recovery-failed', error: other },
      { on: 'recovery-over' },
    ];
    for (const event of events) expect(nextLoop(closed, event, LIVE), event.on).toEqual({ state: closed, act: { do: 'nothing' } });
    expect(nextLoop(closed, { on: 'start' }, LIVE).state).toEqual({ is: 'starting', generation: 2 });
  });
});
