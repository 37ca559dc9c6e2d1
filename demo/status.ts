// How the demo tells the user what happened: the status line, errors in words, and async event handlers
// whose failures land on the page instead of going nowhere as unhandled rejections.
import { isPlatformError } from 'edgeseg';

export function describeError(error: unknown): string {
  if (isPlatformError(error))
    return `${error.name} (${error.code}${error.status ? `, HTTP ${error.status}` : ''}): ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}`;
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

/** The status line above the stage; `badge` replaces the backend badge's text (and `kind` its colour). */
export function status(text: string, badge?: string, kind?: string): void {
  document.querySelector('#status-text')!.textContent = text;
  if (badge !== undefined) {
    const b = document.querySelector('#backend-badge')!;
    b.textContent = badge;
    b.className = `badge ${kind ?? ''}`;
  }
}

/** An error that no panel of its own shows: on the status line. */
export function showError(error: unknown): void {
  status(describeError(error), 'error', 'error');
}

/**
 * `handler` as an event listener (or any callback that must return void): whatever it rejects with is
 * given to `report`, the status line by default, so that no failure of a click or a submit is silent.
 */
export function onAsync<A extends unknown[]>(
  handler: (...args: A) => Promise<unknown>,
  report: (error: unknown) => void = showError,
): (...args: A) => void {
  // The executor runs now, so that the handler's synchronous part (preventDefault) runs in the event; a
  // handler that throws before its first await is reported like one that rejects.
  return (...args) => void new Promise((resolve) => resolve(handler(...args))).catch(report);
}
