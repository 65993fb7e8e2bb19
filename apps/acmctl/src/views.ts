import { MultiBar, Presets } from 'cli-progress';
import type { HistoryEvent, OperationProgress, PhaseProgress } from './progress';
import { eventLine } from './progress';
import type { ProgressView } from './wait';

type Write = (line: string) => void;

/** Without a terminal: one line per event, nothing redrawn, so logs and pipes read in order. */
export class EventLineView implements ProgressView {
  private readonly names = new Map<string, string>();

  constructor(private readonly write: Write) {}

  update(progress: OperationProgress, newEvents: readonly HistoryEvent[]): void {
    for (const phase of progress.phases) {
      for (const element of phase.elements) {
        this.names.set(element.id, element.name);
      }
    }
    for (const event of newEvents) {
      this.write(eventLine(event, this.names));
    }
  }

  stop(): void {}
}

const seconds = (ms: number): string => `${(ms / 1000).toFixed(1)}s`;

/**
 * The text after a phase's bar: elapsed time, each element's state, and the elements still queued, grouped by what they
 * wait for (`Api ← waiting for Database to finish`): "waiting" means queued with its reason, as on the console.
 */
export function phaseSummary(phase: PhaseProgress, now: number): string {
  const elapsed = phase.startedAt === null ? '-' : seconds((phase.finishedAt ?? now) - phase.startedAt);
  const queued = new Map<string, string[]>();
  const states: string[] = [];
  for (const element of phase.elements) {
    if (element.waitingFor === null) {
      states.push(`${element.name} ${element.failed ? 'FAILED' : element.state}`);
    } else {
      queued.set(element.waitingFor, [...(queued.get(element.waitingFor) ?? []), element.name]);
    }
  }
  const waiting = [...queued].map(([reason, names]) => `${names.join(', ')} ← waiting for ${reason}`);
  return [elapsed.padStart(6), ...(states.length > 0 ? [states.join(', ')] : []), ...waiting].join('  ');
}

/**
 * A line's text cut to the terminal's width, which the live view redraws in place (a longer line would wrap and break
 * the redraw, or be cut by the terminal): TOSCA names first shortened to their last two segments, then the end cut.
 */
export function fitToWidth(text: string, width: number): string {
  if (text.length <= width) {
    return text;
  }
  const shorter = text.replace(/\b(?:[\w-]+\.)+([\w-]+\.[\w-]+)\b/g, '$1');
  if (shorter.length <= width) {
    return shorter;
  }
  return width <= 1 ? '' : `${shorter.slice(0, width - 1)}…`;
}

const BAR_SIZE = 12;

/** On a terminal: a bar per phase (elements answered / elements), redrawn in place by cli-progress. */
export class LiveView implements ProgressView {
  private readonly bars = new MultiBar(
    {
      format: ' phase {phase} {bar} {value}/{total} {summary}',
      barsize: BAR_SIZE,
      hideCursor: true,
      clearOnComplete: false,
      fps: 10,
    },
    Presets.shades_grey,
  );
  private readonly phaseBars = new Map<number, ReturnType<MultiBar['create']>>();
  private readonly header = this.bars.create(1, 0, { phase: '', summary: '' }, { format: ' {summary}' });
  private readonly startedAt = Date.now();

  constructor(
    private readonly title: string,
    /** The terminal's width now (it may be resized while the view runs). */
    private readonly columns: () => number = () => process.stdout.columns || 80,
  ) {}

  update(progress: OperationProgress): void {
    const now = Date.now();
    this.header.update(0, {
      summary: fitToWidth(`${this.title}  elapsed ${seconds(now - this.startedAt)}`, this.columns() - 1),
    });
    for (const phase of progress.phases) {
      let bar = this.phaseBars.get(phase.phase);
      if (bar === undefined) {
        bar = this.bars.create(phase.elements.length, 0, { phase: phase.phase, summary: '' });
        this.phaseBars.set(phase.phase, bar);
      }
      // What the format puts before the summary: " phase N ", the bar, " done/total ".
      const before = ` phase ${phase.phase} `.length + BAR_SIZE + ` ${phase.done}/${phase.elements.length} `.length;
      bar.update(phase.done, {
        phase: phase.phase,
        summary: fitToWidth(phaseSummary(phase, now), Math.max(0, this.columns() - before - 1)),
      });
    }
  }

  stop(): void {
    this.header.update(0, { summary: `${this.title}  took ${seconds(Date.now() - this.startedAt)}` });
    this.bars.stop();
  }
}
