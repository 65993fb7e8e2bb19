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

/** The text after a phase's bar: elapsed time, each element's state, and what the phase waits for. */
export function phaseSummary(phase: PhaseProgress, now: number): string {
  const elapsed = phase.startedAt === null ? '-' : seconds((phase.finishedAt ?? now) - phase.startedAt);
  const elements = phase.elements.map((element) => `${element.name} ${element.failed ? 'FAILED' : element.state}`);
  const waiting = phase.elements.filter((element) => element.state === 'running').map((element) => element.name);
  return `${elapsed.padStart(6)}  ${elements.join(', ')}${waiting.length > 0 ? `  ← waiting for ${waiting.join(', ')}` : ''}`;
}

/** On a terminal: a bar per phase (elements answered / elements), redrawn in place by cli-progress. */
export class LiveView implements ProgressView {
  private readonly bars = new MultiBar(
    {
      format: ' phase {phase} {bar} {value}/{total} {summary}',
      barsize: 12,
      hideCursor: true,
      clearOnComplete: false,
      fps: 10,
    },
    Presets.shades_grey,
  );
  private readonly phaseBars = new Map<number, ReturnType<MultiBar['create']>>();
  private readonly header = this.bars.create(1, 0, { phase: '', summary: '' }, { format: ' {summary}' });
  private readonly startedAt = Date.now();

  constructor(private readonly title: string) {}

  update(progress: OperationProgress): void {
    const now = Date.now();
    this.header.update(0, { summary: `${this.title}  elapsed ${seconds(now - this.startedAt)}` });
    for (const phase of progress.phases) {
      let bar = this.phaseBars.get(phase.phase);
      if (bar === undefined) {
        bar = this.bars.create(phase.elements.length, 0, { phase: phase.phase, summary: '' });
        this.phaseBars.set(phase.phase, bar);
      }
      bar.update(phase.done, { phase: phase.phase, summary: phaseSummary(phase, now) });
    }
  }

  stop(): void {
    this.header.update(0, { summary: `${this.title}  took ${seconds(Date.now() - this.startedAt)}` });
    this.bars.stop();
  }
}
