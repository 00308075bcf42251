import { InvalidInputError } from '../errors.js';
import {
  type AgentSelection,
  checkBatch,
  checkPurgeRunsQuery,
  type PurgeableStatus,
  type RetentionStore,
} from '../store/retention-store.js';
import { deletesAnything, type RetentionOptions, type SweepTask, sweepTasks } from './retention-rules.js';

/** What retention deletes, by kind (the label of `wardrik_purged_total`). */
export type PurgedKind = 'runs' | 'journal_records' | 'sessions' | 'memories' | 'artifact_versions';

/** What one purge deleted: told to `onPurged` listeners (metrics count it, `wardrik serve` logs it). */
export interface Purged {
  readonly kind: PurgedKind;
  readonly count: number;
  /** `sweep` (the background sweep, by a rule) or `request` (`wardrik runs purge`). */
  readonly by: 'sweep' | 'request';
  /** The agent or app the rule was for, when it was one's own. */
  readonly agent?: string;
  readonly app?: string;
  /** What was deleted was older than this (ms since the epoch); for artifact versions, how many were kept. */
  readonly before?: number;
  readonly keepVersions?: number;
}

/** What `purgeRuns` is asked: runs of `statuses` last written before `before`, of one agent or all. */
export interface PurgeRunsRequest {
  readonly statuses: readonly PurgeableStatus[];
  readonly before: number;
  readonly agent?: string;
}

/** What a sweep or a purge request deleted in all. */
export interface PurgeTotals {
  readonly runs: number;
  readonly journalRecords: number;
  readonly sessions: number;
  readonly memories: number;
  readonly artifactVersions: number;
}

const DEFAULT_INTERVAL_MS = 10 * 60_000;
const DEFAULT_BATCH = 500;
const DEFAULT_PAUSE_MS = 20;
/** How long after it starts a node sweeps first. */
const FIRST_SWEEP_MS = 30_000;

/** What a `Retention` works with. */
export interface RetentionDeps {
  readonly store: RetentionStore;
  /** This node's name: the holder of the sweep while it sweeps. */
  readonly node: string;
  readonly now: () => number;
  /** The agents this node defines, with their apps (rules of an agent apply to its app's memories and artifacts). */
  readonly agents: readonly { readonly name: string; readonly app: string }[];
  readonly options?: RetentionOptions;
}

/**
 * Deletes what retention no longer keeps: in the background, by the rules (one node at a time,
 * holding the store's sweep lock), and on request (`purgeRuns`). Every purge goes a batch at a
 * time — each batch one short transaction, a pause between two — so the store keeps serving
 * runs while it works. What each batch deleted is told to `onPurged` listeners.
 *
 * @example
 * ```ts
 * wardrik.retention.onPurged(({ kind, count }) => console.log(`purged ${count} ${kind}`))
 * await wardrik.retention.purgeRuns({ statuses: ['completed'], before: Date.now() - 30 * 86_400_000 })
 * ```
 */
export class Retention {
  readonly #deps: RetentionDeps;
  readonly #tasks: readonly SweepTask[];
  readonly #intervalMs: number;
  readonly #batch: number;
  readonly #pauseMs: number;
  readonly #listeners = new Set<(purged: Purged) => void>();
  #timer: NodeJS.Timeout | undefined;
  #sweeping: Promise<PurgeTotals | undefined> | undefined;
  #stopped = false;

  constructor(deps: RetentionDeps) {
    this.#deps = deps;
    const options = deps.options;
    this.#tasks = options && deletesAnything(options) ? sweepTasks(options, deps.agents) : [];
    this.#intervalMs = options?.sweepIntervalMs ?? DEFAULT_INTERVAL_MS;
    this.#batch = options?.batchSize ?? DEFAULT_BATCH;
    this.#pauseMs = options?.pauseMs ?? DEFAULT_PAUSE_MS;
    checkBatch(this.#batch);
  }

  /** Whether the rules ask the background sweep to delete anything. */
  get sweeps(): boolean {
    return this.#tasks.length > 0;
  }

  /** Calls `listener` after each batch that deleted something. Returns the function that stops listening. */
  onPurged(listener: (purged: Purged) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /**
   * Sweeps 30 s after it starts (or after `sweepIntervalMs`, if shorter: not while the node
   * recovers its runs), then every `sweepIntervalMs`, until `stop()` (if the rules delete anything).
   */
  start(): void {
    if (!this.sweeps || this.#timer || this.#stopped) return;
    const sweep = () => void this.sweep().catch(() => {});
    this.#timer = setTimeout(
      () => {
        sweep();
        if (this.#stopped) return;
        this.#timer = setInterval(sweep, this.#intervalMs);
        this.#timer.unref();
      },
      Math.min(FIRST_SWEEP_MS, this.#intervalMs),
    );
    this.#timer.unref();
  }

  /**
   * Runs one sweep, unless one is under way (then resolves with it) or another node holds the
   * sweep (then resolves undefined). Rejects if the store fails.
   */
  sweep(): Promise<PurgeTotals | undefined> {
    if (this.#sweeping) return this.#sweeping;
    const sweeping = this.#sweepOnce().finally(() => {
      if (this.#sweeping === sweeping) this.#sweeping = undefined;
    });
    this.#sweeping = sweeping;
    return sweeping;
  }

  /**
   * Purges runs (`wardrik runs purge`): those of `statuses` last written before `before` (an ended
   * run's end, a parked run's park), of one agent or all, a batch at a time. Never a running run,
   * one a node holds now, or one a kept session holds.
   */
  async purgeRuns(request: PurgeRunsRequest): Promise<PurgeTotals> {
    const agents: AgentSelection | undefined = request.agent === undefined ? undefined : { agent: request.agent };
    checkPurgeRunsQuery({ statuses: request.statuses, before: request.before, limit: this.#batch });
    if (request.before > this.#deps.now()) {
      throw new InvalidInputError(`before: ${new Date(request.before).toISOString()} is in the future`);
    }
    const totals = emptyTotals();
    await this.#batches(async () => {
      const purged = await this.#deps.store.purgeRuns({
        statuses: request.statuses,
        before: request.before,
        ...(agents ? { agents } : {}),
        limit: this.#batch,
      });
      this.#tell(totals, {
        kind: 'runs',
        count: purged.runIds.length,
        by: 'request',
        before: request.before,
        ...(request.agent ? { agent: request.agent } : {}),
      });
      this.#tell(totals, { kind: 'journal_records', count: purged.records, by: 'request', before: request.before });
      return purged.runIds.length;
    });
    return totals;
  }

  /** Stops sweeping, waiting for the batch under way. */
  async stop(): Promise<void> {
    this.#stopped = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#sweeping?.catch(() => {});
  }

  async #sweepOnce(): Promise<PurgeTotals | undefined> {
    if (this.#stopped || !this.sweeps) return undefined;
    const { store, node } = this.#deps;
    // Held for longer than a sweep should take; renewed before every batch.
    const ttlMs = Math.max(60_000, this.#intervalMs);
    if (!(await store.claimSweep(node, ttlMs))) return undefined;
    const totals = emptyTotals();
    try {
      for (const task of this.#tasks) {
        if (this.#stopped) break;
        await this.#run(task, totals, ttlMs);
      }
    } finally {
      await store.releaseSweep(node).catch(() => {});
    }
    return totals;
  }

  async #run(task: SweepTask, totals: PurgeTotals, ttlMs: number): Promise<void> {
    const { store, node, now } = this.#deps;
    const limit = this.#batch;
    const rule = ruleOf(task);
    const before = 'keepMs' in task ? now() - task.keepMs : undefined;
    await this.#batches(async () => {
      if (!(await store.claimSweep(node, ttlMs))) return 0; // another node took it over: it goes on
      switch (task.kind) {
        case 'runs': {
          const purged = await store.purgeRuns({
            statuses: task.statuses,
            before: before as number,
            agents: task.agents,
            limit,
          });
          this.#tell(totals, { kind: 'runs', count: purged.runIds.length, by: 'sweep', before, ...rule });
          this.#tell(totals, { kind: 'journal_records', count: purged.records, by: 'sweep', before, ...rule });
          return purged.runIds.length;
        }
        case 'sessions': {
          const count = await store.purgeSessions({ idleBefore: before as number, agents: task.agents, limit });
          this.#tell(totals, { kind: 'sessions', count, by: 'sweep', before, ...rule });
          return count;
        }
        case 'memories': {
          const count = await store.purgeMemories({ before: before as number, apps: task.apps, limit });
          this.#tell(totals, { kind: 'memories', count, by: 'sweep', before, ...rule });
          return count;
        }
        case 'artifact_versions': {
          const count = await store.purgeArtifactVersions({ keepVersions: task.keepVersions, apps: task.apps, limit });
          this.#tell(totals, {
            kind: 'artifact_versions',
            count,
            by: 'sweep',
            keepVersions: task.keepVersions,
            ...rule,
          });
          return count;
        }
      }
    });
  }

  /** Runs `batch` until it deletes less than a full batch, pausing between two so that the store serves runs. */
  async #batches(batch: () => Promise<number>): Promise<void> {
    for (;;) {
      const count = await batch();
      if (count < this.#batch || this.#stopped) return;
      await new Promise((resolve) => setTimeout(resolve, this.#pauseMs));
    }
  }

  #tell(totals: PurgeTotals, purged: Omit<Purged, 'before'> & { before?: number | undefined }): void {
    if (purged.count === 0) return;
    const mutable = totals as { -readonly [K in keyof PurgeTotals]: number };
    mutable[TOTAL_OF[purged.kind]] += purged.count;
    const { before, ...rest } = purged;
    const event: Purged = before === undefined ? rest : { ...rest, before };
    for (const listener of [...this.#listeners]) {
      try {
        listener(event);
      } catch {
        // A listener's failure must not stop the purge.
      }
    }
  }
}

const TOTAL_OF: Record<PurgedKind, keyof PurgeTotals> = {
  runs: 'runs',
  journal_records: 'journalRecords',
  sessions: 'sessions',
  memories: 'memories',
  artifact_versions: 'artifactVersions',
};

function emptyTotals(): PurgeTotals {
  return { runs: 0, journalRecords: 0, sessions: 0, memories: 0, artifactVersions: 0 };
}

/** Whose rule a task is, for the log: an agent's, an app's, or none (the general rule). */
function ruleOf(task: SweepTask): { agent?: string; app?: string } {
  if ('agents' in task && 'agent' in task.agents) return { agent: task.agents.agent };
  if ('apps' in task && 'app' in task.apps) return { app: task.apps.app };
  return {};
}
