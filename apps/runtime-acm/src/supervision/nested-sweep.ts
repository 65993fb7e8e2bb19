import { OPERATION_ENDS } from '@acm/domain';
import { TypeOrmUnitOfWork } from '@acm/persistence';
import type { OnApplicationBootstrap } from '@nestjs/common';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { NestedCompositions } from '../application/nested-compositions';
import { RUNTIME_CONFIG } from '../config/runtime.config';
import type { RuntimeConfig } from '../config/runtime.config';

const NESTED_SWEEP = 'nested-sweep';

/** The history kinds after which a child's parent looks at it again. */
const ENDING_KINDS: ReadonlySet<string> = new Set([...Object.keys(OPERATION_ENDS), 'TIMEOUT']);

/**
 * Drives nested compositions: a committed CHILD_ORDERED drives that parent's children at once, an operation that
 * ends on a child drives its parent, and every HEART_BEAT ms a sweep drives every parent seen with work, so a
 * lost event, another replica's commit or a restart cannot wedge a parent (the driver re-reads the child's state).
 */
@Injectable()
export class NestedSweep implements OnApplicationBootstrap {
  private readonly logger = new Logger('Nesting');
  private stopped = false;
  /** Parents with a running nested element, as this replica saw them; the sweep visits each until it is done. */
  private readonly parents = new Set<string>();
  /** Children whose end this replica should pass on: child → parent (a deleted child can no longer be read). */
  private readonly children = new Map<string, string>();
  private chain: Promise<void> = Promise.resolve();

  constructor(
    @Inject(RUNTIME_CONFIG) private readonly config: RuntimeConfig,
    private readonly scheduler: SchedulerRegistry,
    private readonly nested: NestedCompositions,
    private readonly unitOfWork: TypeOrmUnitOfWork,
  ) {}

  onApplicationBootstrap(): void {
    this.unitOfWork.onEventsCommitted((events) => {
      if (this.stopped) {
        return;
      }
      for (const event of events) {
        if (event.event === 'CHILD_ORDERED') {
          this.parents.add(event.subjectId);
          this.drive(event.subjectId);
        } else if (ENDING_KINDS.has(event.event)) {
          this.childEnded(event.subjectId);
        }
      }
    });
    this.scheduler.addInterval(
      NESTED_SWEEP,
      setInterval(() => this.sweep(), this.config.heartBeatMs),
    );
    // After a restart: every instance in a transition is looked at once; those with a child at work stay.
    this.serially(async () => {
      for (const instanceId of await this.nested.inTransition()) {
        this.drive(instanceId);
      }
    });
  }

  /** Drives each parent seen with a nested element at work, again (a restart finds them by their CHILD_ORDERED). */
  sweep(): void {
    for (const parent of this.parents) {
      this.drive(parent);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.scheduler.doesExist('interval', NESTED_SWEEP)) {
      this.scheduler.deleteInterval(NESTED_SWEEP);
    }
    await this.chain;
  }

  private childEnded(instanceId: string): void {
    const known = this.children.get(instanceId);
    if (known !== undefined) {
      this.drive(known);
      return;
    }
    this.serially(async () => {
      const owner = await this.nested.parentOf(instanceId);
      if (owner !== null) {
        this.children.set(instanceId, owner.instanceId);
        this.parents.add(owner.instanceId);
        await this.nested.reconcile(owner.instanceId);
      }
    });
  }

  private drive(parentInstanceId: string): void {
    this.serially(async () => {
      const busy = await this.nested.reconcile(parentInstanceId);
      for (const child of busy.children) {
        this.children.set(child, parentInstanceId);
      }
      if (!busy.waiting) {
        this.parents.delete(parentInstanceId);
      }
    });
  }

  /** One drive at a time on this replica: a child's end and the sweep never order the same child twice at once. */
  private serially(work: () => Promise<void>): void {
    this.chain = this.chain.then(work).catch((error: unknown) => {
      this.logger.warn(
        `Nested composition step failed, the next sweep retries: ${error instanceof Error ? error.message : String(error)}`,
      );
    });
  }
}
