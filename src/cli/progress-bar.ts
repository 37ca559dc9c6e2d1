// The batch command's progress bar: one line on a terminal's stderr, redrawn as each image finishes.

export interface Progress {
  done: number;
  total: number;
  failed: number;
  /** Milliseconds since the batch started. */
  elapsedMs: number;
}

/** The line for `progress`, at most `columns` characters: bar, count, percent, failures, rate and time left. */
export function progressLine(progress: Progress, columns = 80): string {
  const { done, total, failed, elapsedMs } = progress;
  const fraction = total === 0 ? 1 : done / total;
  const rate = elapsedMs > 0 ? (done * 1000) / elapsedMs : 0;
  const parts = [
    `${String(done).padStart(String(total).length)}/${total}`,
    `${String(Math.floor(fraction * 100)).padStart(3)}%`,
    ...(failed > 0 ? [`${failed} failed`] : []),
    ...(done > 0
      ? [
          `${rate.toFixed(1)} images/s`,
          `${done < total ? `about ${formatSeconds((total - done) / rate)} left` : `${formatSeconds(elapsedMs / 1000)}`}`,
        ]
      : []),
  ];
  const text = parts.join(' · ');
  const barWidth = Math.max(0, Math.min(30, columns - text.length - 3));
  if (barWidth < 5) {
    // No room for a bar: whole parts, dropped from the end, rather than a word cut in half.
    while (parts.length > 1 && parts.join(' · ').length > columns) parts.pop();
    return parts.join(' · ').slice(0, columns);
  }
  const filled = Math.round(fraction * barWidth);
  return `[${'#'.repeat(filled)}${'-'.repeat(barWidth - filled)}] ${text}`;
}

export function formatSeconds(seconds: number): string {
  if (seconds < 60) return `${seconds.toFixed(seconds < 10 ? 1 : 0)} s`;
  const m = Math.floor(seconds / 60);
  return m < 60 ? `${m} min ${Math.round(seconds % 60)} s` : `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** Function properties, not methods: `update` is handed on as a batch's `onProgress`, unbound. */
export interface ProgressBar {
  update: (progress: Progress) => void;
  clear: () => void;
}

/** Redraws the line in place with a carriage return; `clear()` leaves the terminal as it was for the summary. */
export function createProgressBar(write: (text: string) => void, columns: () => number | undefined): ProgressBar {
  let shown = false;
  return {
    update: (progress) => {
      // \x1b[K clears what a longer previous line left to the right.
      write(`\r${progressLine(progress, (columns() ?? 80) - 1)}\x1b[K`);
      shown = true;
    },
    clear: () => {
      if (shown) write('\r\x1b[K');
      shown = false;
    },
  };
}
