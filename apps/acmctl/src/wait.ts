import type { AcmClient } from './client';
import { AcmctlError, EXIT } from './exit-codes';
import type { GraphNode, HistoryEvent, HistoryOperation, OperationProgress } from './progress';
import { foldProgress, lastSequence, operationAfter, outcomeOf, readGraphNodes, readHistory } from './progress';

/** What a wait shows: a line per event (no terminal) or a live view (terminal). */
export interface ProgressView {
  update(progress: OperationProgress, newEvents: readonly HistoryEvent[]): void;
  stop(): void;
}

/** The REST paths of the subject an order acts on. */
export interface Subject {
  /** GET of the subject; null (404) means it is gone. */
  readonly statePath: string;
  readonly historyPath: string;
  /** The instance graph, for the names and start phases of its elements. */
  readonly graphPath?: string;
}

export interface WaitOptions {
  readonly timeoutMs: number;
  readonly pollMs: number;
  /** Deletes end when the subject is gone, and its history with it. */
  readonly untilGone?: boolean;
}

/** A poll survives a few 5xx in a row: one failed read must not abandon an operation that runs on. */
const MAX_CONSECUTIVE_SERVER_ERRORS = 5;

/** One poll: the body, null when the subject is gone, undefined after a 5xx (counted by the caller). */
async function pollOnce(client: AcmClient, path: string, onServerError: () => void): Promise<unknown> {
  try {
    return await client.getIfPresent(path);
  } catch (error) {
    if (error instanceof AcmctlError && error.exitCode === EXIT.SERVER_ERROR) {
      onServerError();
      return undefined;
    }
    throw error;
  }
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** The history's last sequence before an order, so the wait can find the operation the order starts. */
export async function historyBaseline(client: AcmClient, subject: Subject): Promise<number> {
  for (let attempt = 0; ; attempt += 1) {
    const body = await pollOnce(client, subject.historyPath, () => undefined);
    if (body !== undefined || attempt >= MAX_CONSECUTIVE_SERVER_ERRORS) {
      return lastSequence(readHistory(body ?? (await client.get(subject.historyPath))));
    }
    await pause(200);
  }
}

/**
 * The baseline that makes a wait follow the operation already running (a resume continues it rather than
 * starting one): just before that operation's ORDERED event, or the latest event when none runs.
 */
export async function runningOperationBaseline(
  client: AcmClient,
  subject: Subject,
  operationId: string,
): Promise<number> {
  const history = readHistory(await client.get(subject.historyPath));
  const ordered = history.events.find((event) => event.operationId === operationId && event.event === 'ORDERED');
  return ordered === undefined ? lastSequence(history) : ordered.sequence - 1;
}

async function graphNodes(client: AcmClient, subject: Subject): Promise<GraphNode[]> {
  if (subject.graphPath === undefined) {
    return [];
  }
  return readGraphNodes(await client.get(`${subject.graphPath}?format=json`));
}

/**
 * Polls the subject's history until the operation the order started ends, feeding the view each new event.
 * Ends with the operation when COMPLETED; throws with the FAILED or TIMEOUT exit code otherwise.
 */
export async function waitForOperation(
  client: AcmClient,
  subject: Subject,
  baseline: number,
  view: ProgressView,
  options: WaitOptions,
): Promise<HistoryOperation | null> {
  const nodes = await graphNodes(client, subject);
  const deadline = Date.now() + options.timeoutMs;
  let shown = baseline;
  let serverErrors = 0;
  try {
    for (;;) {
      const body = await pollOnce(client, subject.historyPath, () => (serverErrors += 1));
      if (body === undefined) {
        if (serverErrors > MAX_CONSECUTIVE_SERVER_ERRORS) {
          throw new AcmctlError(EXIT.SERVER_ERROR, `${subject.historyPath} kept answering 5xx while waiting`);
        }
        await pause(options.pollMs);
        continue;
      }
      serverErrors = 0;
      if (body === null) {
        if (options.untilGone) {
          return null;
        }
        throw new AcmctlError(EXIT.REFUSED, `${subject.statePath} is gone while waiting for its operation`);
      }
      const history = readHistory(body);
      const operation = operationAfter(history, baseline);
      if (operation !== undefined) {
        const ours = history.events.filter((event) => event.operationId === operation.operationId);
        const fresh = ours.filter((event) => event.sequence > shown);
        shown = Math.max(shown, ...fresh.map((event) => event.sequence));
        view.update(foldProgress(nodes, ours), fresh);
        const outcome = outcomeOf(operation);
        if (outcome === 'FAILED') {
          throw new AcmctlError(EXIT.FAILED, `${operation.order} FAILED${failureMessage(ours)}`);
        }
        if (outcome === 'TIMEOUT') {
          throw new AcmctlError(EXIT.TIMEOUT, `${operation.order} timed out on the runtime`);
        }
        if (outcome === 'CANCELLED' || outcome === 'SUPERSEDED') {
          throw new AcmctlError(EXIT.CANCELLED, `${operation.order} ${outcome}${endedBy(ours)}`);
        }
        if (outcome === 'COMPLETED') {
          if (!options.untilGone || (await client.getIfPresent(subject.statePath)) === null) {
            return operation;
          }
        }
      }
      if (Date.now() > deadline) {
        throw new AcmctlError(EXIT.TIMEOUT, `gave up waiting after ${options.timeoutMs} ms (--timeout)`);
      }
      await pause(options.pollMs);
    }
  } finally {
    view.stop();
  }
}

/** Who cancelled the operation, or which order superseded it. */
function endedBy(events: readonly HistoryEvent[]): string {
  for (const event of events) {
    if (event.event === 'SUPERSEDED') {
      return ` by ${event.detail.by}`;
    }
    if (event.event === 'CANCELLED' && event.actor.kind === 'request') {
      return ` by ${event.actor.user ?? 'a signed request'} (request ${event.actor.requestId ?? '-'})`;
    }
  }
  return '';
}

function failureMessage(events: readonly HistoryEvent[]): string {
  const messages = events
    .map((event) =>
      (event.event === 'ELEMENT_RESULT' && !event.detail.result) || event.event === 'FAILED'
        ? event.detail.message
        : null,
    )
    .filter((message): message is string => typeof message === 'string' && message !== '');
  return messages.length > 0 ? `: ${[...new Set(messages)].join('; ')}` : '';
}
