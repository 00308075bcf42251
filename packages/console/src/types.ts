/** What the `/v1` API returns, as far as the console reads it. */

export type Measures = Readonly<Record<string, number>>;

export type RunStatus = 'running' | 'parked' | 'completed' | 'failed' | 'cancelled';

export type ParkKind = 'tool' | 'in_doubt' | 'budget' | 'approval' | 'external';

export type Action =
  | 'agents.list'
  | 'run.start'
  | 'run.read'
  | 'run.cancel'
  | 'park.read'
  | 'park.answer'
  | 'labels.release'
  | 'state.edit'
  | 'app-state.edit'
  | 'tokens.manage'
  | 'workers.list';

export interface Principal {
  readonly id: string;
  readonly name: string;
  readonly kind: string;
  readonly role: 'admin' | 'operator' | 'user' | 'worker';
  readonly agents: readonly string[];
  readonly createdAt?: number;
}

export interface Me {
  readonly principal: Principal;
  readonly may: Readonly<Record<Action, boolean>>;
}

export interface RunRow {
  readonly id: string;
  readonly agent: string;
  readonly principal: string;
  readonly status: RunStatus;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly measures: Measures;
  readonly labels: readonly string[];
  readonly output?: string;
  readonly error?: string;
  readonly attention?: string;
}

export type Decision =
  | { readonly type: 'answer'; readonly value: unknown }
  | { readonly type: 'retry'; readonly note?: string; readonly previousHolderStopped?: true }
  | { readonly type: 'fail'; readonly reason?: string }
  | { readonly type: 'approve'; readonly note?: string; readonly remember?: 'run' | 'agent' }
  | { readonly type: 'deny'; readonly reason?: string }
  | { readonly type: 'edit'; readonly arguments: Record<string, unknown>; readonly note?: string }
  | { readonly type: 'raise-budget'; readonly budget: { usd?: number; tokens?: number; steps?: number } }
  | { readonly type: 'stop'; readonly reason?: string };

export interface ParkRow {
  readonly id: string;
  readonly runId: string;
  readonly kind: ParkKind;
  readonly reason: string;
  readonly details?: unknown;
  readonly call?: {
    readonly callId: string;
    readonly name: string;
    readonly arguments: unknown;
    readonly idempotencyKey: string;
  };
  readonly labels: readonly string[];
  readonly measures?: Measures;
  readonly callHash: string;
  readonly rule?: string;
  readonly handle?: string;
  readonly deadline?: number;
  /** For an in-doubt call another node started and lost the run with: that node. */
  readonly holder?: {
    readonly node: string;
    readonly incarnation: string;
    readonly epoch: number;
    readonly startedAt?: number;
  };
  readonly createdAt: number;
  readonly status: 'open' | 'answered' | 'closed';
  readonly decision?: Decision;
  readonly answeredBy?: string;
  readonly answeredAt?: number;
}

export interface InboxItem {
  readonly park: ParkRow;
  readonly run: Pick<RunRow, 'id' | 'agent' | 'principal' | 'status' | 'measures' | 'labels'>;
  readonly schema?: Record<string, unknown>;
}

export interface Answer {
  readonly type: 'ok' | 'error' | 'park' | 'started';
  readonly value?: unknown;
  readonly reason?: string;
  readonly labels?: readonly string[];
  readonly measures?: Measures;
}

/** A journal record as the API gives it (with its seq). */
export interface StoredRecord {
  readonly runId: string;
  readonly seq: number;
  readonly record: JournalRecord;
}

export type JournalRecord =
  | {
      readonly type: 'run-started';
      readonly at: number;
      readonly agent: string;
      readonly principal: string;
      readonly input: string;
      readonly session?: string;
      readonly labels?: readonly string[];
      readonly budget?: Measures;
      readonly parent?: { readonly runId: string; readonly callId: string };
    }
  | {
      readonly type: 'model-step';
      readonly at: number;
      readonly step: number;
      readonly model: string;
      readonly text: string;
      readonly toolCalls: readonly { readonly id?: string; readonly name: string; readonly arguments?: unknown }[];
      readonly usage: { readonly inputTokens: number; readonly outputTokens: number };
      readonly measures: Measures;
      readonly labels?: readonly string[];
      readonly agent?: string;
      readonly callback?: string;
      readonly unavailable?: readonly { readonly toolset: string; readonly reason: string }[];
    }
  | {
      readonly type: 'call-started';
      readonly at: number;
      readonly callId: string;
      readonly name: string;
      readonly arguments: unknown;
      readonly attempt: number;
      readonly rule?: string;
      readonly repeatable: boolean;
    }
  | {
      readonly type: 'call-answered';
      readonly at: number;
      readonly callId: string;
      readonly answer: Answer;
      readonly attempts: number;
      readonly rule?: string;
    }
  | { readonly type: 'run-parked'; readonly at: number; readonly park: ParkRow }
  | {
      readonly type: 'park-answered';
      readonly at: number;
      readonly parkId: string;
      readonly decision: Decision;
      readonly by: string;
    }
  | {
      readonly type: 'call-changed';
      readonly at: number;
      readonly callId: string;
      readonly arguments: unknown;
      readonly by: string;
    }
  | {
      readonly type: 'agent-transferred';
      readonly at: number;
      readonly callId: string;
      readonly from: string;
      readonly to: string;
      readonly reason?: string;
    }
  | {
      readonly type: 'child-run-started';
      readonly at: number;
      readonly callId: string;
      readonly childRunId: string;
      readonly agent: string;
    }
  | {
      readonly type: 'labels-released';
      readonly at: number;
      readonly labels: readonly string[];
      readonly by: string;
      readonly reason: string;
    }
  | {
      readonly type: 'run-ended';
      readonly at: number;
      readonly status: RunStatus;
      readonly output?: string;
      readonly error?: string;
      readonly labels: readonly string[];
      readonly measures: Measures;
    };

export interface RunDetails extends RunRow {
  readonly journal: readonly StoredRecord[];
}

export interface WorkerInfo {
  readonly id: string;
  readonly principal: string;
  readonly node: string;
  readonly connectedAt: number;
  readonly tools: readonly string[];
  readonly modelNames: Readonly<Record<string, string>>;
  readonly rejected: readonly { readonly name: string; readonly reason: string }[];
  readonly inflight: number;
}

export interface TokenInfo {
  readonly id: string;
  readonly principalId: string;
  readonly createdAt: number;
  readonly revokedAt?: number;
  /** When it stops working on its own; none: it works until revoked. */
  readonly expiresAt?: number;
}

export interface SessionRow {
  readonly id: string;
  readonly agent: string;
  readonly principal: string;
  readonly createdAt: number;
  readonly updatedAt: number;
  readonly runs: number;
  readonly lastRun?: string;
}

export interface SessionDetails extends SessionRow {
  readonly runList: readonly RunRow[];
  readonly messages: readonly { readonly role: string; readonly content?: unknown; readonly runId: string }[];
  readonly earlierMessages: boolean;
  readonly state: readonly { readonly key: string; readonly value: unknown; readonly labels: readonly string[] }[];
  readonly edits: readonly {
    readonly id: number;
    readonly by: string;
    readonly reason: string;
    readonly at: number;
    readonly writes: readonly { readonly key: string; readonly deleted?: boolean }[];
  }[];
}
