// The frame loop's life as the page sees it (LoopState), and what each thing that happens to it does
// (nextLoop): whether a failure is recovered from (a new worker, or the next backend), starts the loop
// again, or ends the output. Pure: the LoopSupervisor tells it each event and does what it says.
import { BackendError } from '../errors/index.js';

/**
 * Which loop runs, and how. Each loop has a number (`generation`): a new loop (a process(), a restart
 * after a crash or a fallback) replaces the one before it, whose events are ignored from then on.
 * - `starting`: the loop is starting in its worker;
 * - `running`: it started, and takes frames;
 * - `recovering`: a new worker is being started for the model after a failure; the loop goes on
 *   meanwhile as it was (`loop`: starting or running), on the last good mask, until the new worker runs
 *   and the loop starts again there;
 * - `closed`: no loop runs (before the first process(), once its output ended, or once the effect closed).
 */
export type LoopState =
  | { is: 'starting'; generation: number }
  | { is: 'running'; generation: number }
  | { is: 'recovering'; generation: number; loop: 'starting' | 'running' }
  | { is: 'closed'; generation: number };

/** What happens to the loop: from its worker, from the page, from a recovery. */
export type LoopEvent =
  /** A loop starts (a process(), or a restart): it replaces the one before it. */
  | { on: 'start' }
  /** Loop `generation` started in its worker. */
  | { on: 'started'; generation: number }
  /** Its start failed (`loopDied`: its worker died meanwhile, which `loop-died` answers). */
  | { on: 'start-failed'; generation: number; error: Error; loopDied: boolean }
  /** It stopped in its worker: its input ended, or it failed (`error`). */
  | { on: 'loop-ended'; generation: number; error?: Error }
  /** The model failed on a frame, which was shown on the last good mask: the loop goes on. */
  | { on: 'frame-failed'; generation: number; error: Error }
  /** The model's worker died. */
  | { on: 'model-died'; generation: number; error: Error }
  /** The loop's own worker died (the page has let go of that loop's output). */
  | { on: 'loop-died'; generation: number }
  /** The frames path: a frame sent to the loop failed (`loopDied`: the loop's worker died meanwhile). */
  | { on: 'frame-call-failed'; generation: number; error: Error; loopDied: boolean }
  /** The frames path: the page cannot show the frames (its <video> would not play). */
  | { on: 'page-failed'; generation: number; error: Error }
  /** The input track ended (seen on the page, where the loop's worker does not read the caller's track). */
  | { on: 'input-ended' }
  /** Recovery: a new worker runs the model. */
  | { on: 'recovered' }
  /** Recovery: no worker could take over (the model no longer loads). */
  | { on: 'recovery-failed'; error: Error }
  /** Recovery is over (whether or not the loop moved). */
  | { on: 'recovery-over' }
  /** The effect closed. */
  | { on: 'close' };

/** What the supervisor does next. */
export type LoopAction =
  | { do: 'nothing' }
  /** Starts a new worker for the model: a fresh one on the same backend (`crashed`), or the next backend (`failed`). */
  | { do: 'recover'; failure: 'crashed' | 'failed'; error: Error }
  /** Starts the loop again, on the same output (a new worker has the model, or a new loop worker is needed). */
  | { do: 'restart' }
  /** Ends the output; the app is told of `error` (onError). */
  | { do: 'end'; error?: Error };

/** What the decision needs to know of the page. */
export interface LoopFacts {
  /** Whether the caller's input track is live. */
  inputLive: boolean;
  /** Whether the output lives in the loop's worker (the track path), and so ends with that worker. */
  outputInLoopWorker: boolean;
}

const NOTHING: LoopAction = { do: 'nothing' };

/**
 * The loop's next state after `event`, and what to do. The rules:
 * - events of a loop that was replaced are ignored, and every event once no loop runs;
 * - a backend that fails on a frame, a dead model worker, and a loop that stopped on either while the
 *   input is live are recovered from (one recovery at a time; the loop goes on meanwhile); a loop that
 *   stopped on anything else, or once the input ended, ends the output with its error;
 * - a dead loop worker is replaced and the loop started again on the same output (where the output lives
 *   in that worker, the output ends with WORKER_CRASHED);
 * - on the frames path a frame's call that found a dead model worker is recovered from, and one that
 *   failed otherwise ends the output (unless a recovery runs);
 * - the input ending ends the output; so does a recovery that found no worker.
 */
export function nextLoop(state: LoopState, event: LoopEvent, facts: LoopFacts): { state: LoopState; act: LoopAction } {
  const { generation } = state;
  const stay = { state, act: NOTHING };
  if (event.on === 'start') {
    const next = generation + 1;
    return {
      state: state.is === 'recovering' ? { is: 'recovering', generation: next, loop: 'starting' } : { is: 'starting', generation: next },
      act: NOTHING,
    };
  }
  if (event.on === 'close') return { state: { is: 'closed', generation }, act: NOTHING };
  if (state.is === 'closed') return stay;
  // Every event below but the page's and the recovery's names its loop: a replaced loop's are ignored.
  if ('generation' in event && event.generation !== generation) return stay;
  switch (event.on) {
    case 'started':
      return { state: state.is === 'recovering' ? { ...state, loop: 'running' } : { is: 'running', generation }, act: NOTHING };
    case 'loop-ended':
      // A loop stopped while its worker is replaced is not the output's end.
      return state.is === 'recovering' ? stay : stopped(state, event.error, facts);
    case 'start-failed':
      return event.loopDied ? stay : stopped(state, event.error, facts);
    case 'frame-failed':
      return recover(state, 'failed', event.error, facts);
    case 'model-died':
      return recover(state, 'crashed', event.error, facts);
    case 'loop-died':
      if (!facts.inputLive) return stay;
      if (facts.outputInLoopWorker) {
        return end(generation, new BackendError('WORKER_CRASHED', "the frame loop's worker died, and the output track it wrote with it"));
      }
      return { state, act: { do: 'restart' } };
    case 'frame-call-failed':
      if (codeOf(event.error) === 'WORKER_CRASHED') return event.loopDied ? stay : recover(state, 'crashed', event.error, facts);
      return state.is === 'recovering' ? stay : end(generation, event.error);
    case 'page-failed':
      return end(generation, event.error);
    case 'input-ended':
      return end(generation);
    case 'recovered':
      if (state.is !== 'recovering') return stay;
      return facts.inputLive ? { state, act: { do: 'restart' } } : end(generation);
    case 'recovery-failed':
      return state.is === 'recovering' ? end(generation, event.error) : stay;
    case 'recovery-over':
      return state.is === 'recovering' ? { state: { is: state.loop, generation }, act: NOTHING } : stay;
  }
}

/** A recovery from `failure`, where none runs and the input is live. */
function recover(state: LoopState, failure: 'crashed' | 'failed', error: Error, facts: LoopFacts): { state: LoopState; act: LoopAction } {
  if (state.is !== 'starting' && state.is !== 'running') return { state, act: NOTHING };
  if (!facts.inputLive) return { state, act: NOTHING };
  return { state: { is: 'recovering', generation: state.generation, loop: state.is }, act: { do: 'recover', failure, error } };
}

/** The loop stopped (on `error`): a failed backend or a dead worker is recovered from while the input is live; else the output ends. */
function stopped(state: LoopState, error: Error | undefined, facts: LoopFacts): { state: LoopState; act: LoopAction } {
  const code = codeOf(error);
  if ((code === 'BACKEND_FAILED' || code === 'WORKER_CRASHED') && facts.inputLive) {
    return recover(state, code === 'WORKER_CRASHED' ? 'crashed' : 'failed', error!, facts);
  }
  return end(state.generation, error);
}

function end(generation: number, error?: Error): { state: LoopState; act: LoopAction } {
  return { state: { is: 'closed', generation }, act: error ? { do: 'end', error } : { do: 'end' } };
}

const codeOf = (error: unknown): string | undefined => (error as { code?: string } | undefined)?.code;
