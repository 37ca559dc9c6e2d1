// What else the machine does while the bench measures: the CPU that processes outside the bench's own
// tree (this Node and the browsers it started) use, read from Linux's /proc once a second. The load average
// lags by a minute and counts the bench itself; this does neither.
import { readdirSync, readFileSync } from 'node:fs';

/** Clock ticks a second of /proc's times (USER_HZ: 100 on every Linux the bench runs on). */
const HZ = 100;

/** pid → [parent pid, CPU ticks so far, its own and its reaped children's]. */
function processes(): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return out;
  }
  for (const pid of pids) {
    try {
      const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
      // The command name is in parentheses and may hold spaces: the fields start after the last ')'.
      const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
      // From state (field 3): ppid is 4, utime 14, stime 15, cutime 16, cstime 17.
      const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
      out.set(Number(pid), [Number(fields[1]), ticks]);
    } catch {
      // Gone between the listing and the read.
    }
  }
  return out;
}

/** Whether `pid` is this process or started by it (its browsers, their renderers and helpers). */
function ours(pid: number, table: Map<number, [number, number]>): boolean {
  for (let p = pid, hops = 0; p > 1 && hops < 64; hops++) {
    if (p === process.pid) return true;
    p = table.get(p)?.[0] ?? 0;
  }
  return false;
}

/**
 * Samples other processes' CPU once a second; `since(mark)` gives the cores they kept busy on average since
 * `mark()` (0: nothing else ran; 1: a whole core went to other work). Null where /proc cannot be read.
 */
export class OtherWork {
  #last = processes();
  #at = performance.now();
  /** Other processes' CPU seconds, summed from the start, and when each sample was taken. */
  #total = 0;
  readonly #timer: NodeJS.Timeout;
  readonly available = this.#last.size > 0;

  constructor() {
    this.#timer = setInterval(() => this.sample(), 1000);
    this.#timer.unref();
  }

  /** Adds the other processes' CPU since the last sample (a process seen once only counts from then). */
  sample(): void {
    const now = processes();
    for (const [pid, [, ticks]] of now) {
      const before = this.#last.get(pid);
      if (before && !ours(pid, now)) this.#total += Math.max(0, ticks - before[1]) / HZ;
    }
    this.#last = now;
    this.#at = performance.now();
  }

  /** A point to measure from. */
  mark(): { total: number; at: number } {
    this.sample();
    return { total: this.#total, at: this.#at };
  }

  /** Cores busy with other work since `from`, on average; null where /proc cannot be read. */
  since(from: { total: number; at: number }): number | null {
    if (!this.available) return null;
    this.sample();
    const seconds = (this.#at - from.at) / 1000;
    return seconds > 0 ? (this.#total - from.total) / seconds : 0;
  }

  /**
   * Waits, up to `maxMs`, for `windowMs` in a row in which other work kept less than `cores` busy; resolves
   * with how long it waited (where /proc cannot be read, at once).
   */
  async quiet(cores: number, windowMs: number, maxMs: number): Promise<number> {
    const start = performance.now();
    if (!this.available) return 0;
    for (;;) {
      const from = this.mark();
      await new Promise((resolve) => setTimeout(resolve, windowMs));
      const busy = this.since(from)!;
      const waited = performance.now() - start;
      if (busy < cores || waited >= maxMs) return waited;
    }
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}
